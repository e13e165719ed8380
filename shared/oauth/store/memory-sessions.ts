/** The in-memory twins of sign-in sessions (by hash) and approvals (by person, client and resource). */
import type { Id } from '../../directory/model';
import { copy, holding, innerMap, nestedEntries, readCopy } from '../../store/memory';
import { sessionCollision, type Approval, type ApprovalRecords, type SignInSession, type SignInSessionRecords } from './port';

export function memorySessions(): SignInSessionRecords {
  const rows = new Map<string, SignInSession>();
  const records: SignInSessionRecords = {
    insert: async (session) => {
      if (rows.has(session.sessionHash)) throw sessionCollision();
      rows.set(session.sessionHash, copy(session));
    },
    get: readCopy(rows),
    take: async (sessionHash) => rows.delete(sessionHash),
  };
  return holding(records, { sessions: () => rows });
}

export function memoryApprovals(): ApprovalRecords {
  /** user id -> `<resource> <client id>` -> approval. */
  const rows = new Map<Id, Map<string, Approval>>();
  const keyOf = (resource: string, clientId: string) => `${resource} ${clientId}`;
  const records: ApprovalRecords = {
    get: async (userId, clientId, resource) => {
      const row = rows.get(userId)?.get(keyOf(resource, clientId));
      return row && copy(row);
    },
    listOfUser: async (userId) => [...(rows.get(userId)?.values() ?? [])].map(copy),
    put: async (approval) => {
      innerMap(rows, approval.userId).set(keyOf(approval.resource, approval.clientId), copy(approval));
    },
    remove: async (userId, clientId, resource) => rows.get(userId)?.delete(keyOf(resource, clientId)) ?? false,
  };
  return holding(records, { approvals: () => nestedEntries(rows) });
}
