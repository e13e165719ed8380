/**
 * The in-memory twin of invitations: each under its token's hash with a version, a number pointer,
 * and the current one per patient and app. Steps check every condition before writing (see
 * memory-codes.ts); the redemption's code goes to the codes' twin through `newCode`.
 */
import type { Id } from '../../directory/model';
import { copy, counter, holding, readCopy, withFields } from '../../store/memory';
import type { MemoryCodesAndGrants } from './memory-codes';
import { invitationChanged, invitationCollision, invitationNumberCollision, type InvitationChange, type InvitationRecords, type SeenInvitation } from './port';

export function memoryInvitations(newCode: MemoryCodesAndGrants['newCode']): InvitationRecords {
  const rows = new Map<string, SeenInvitation>();
  const numbers = new Map<Id, string>();
  /** `<patient>/<app number>` -> token hash of the current invitation. */
  const currents = new Map<string, string>();

  const read = readCopy(rows);
  const seenOf = async (tokenHash: string | undefined) => (tokenHash === undefined ? undefined : read(tokenHash));
  /** Refuses a change over a version that moved on; answers the write that makes it. */
  const changeOf = (seen: SeenInvitation, fields: InvitationChange) => {
    const row = rows.get(seen.invitation.tokenHash);
    if (!row || row.version !== seen.version) throw invitationChanged();
    return () => void rows.set(seen.invitation.tokenHash, { invitation: copy(withFields(row.invitation, fields)), version: row.version + 1 });
  };

  const records: InvitationRecords = {
    newId: counter(),
    get: read,
    getById: (id) => seenOf(numbers.get(id)),
    listOfPatient: async (patientId) =>
      [...rows.values()]
        .map((row) => row.invitation)
        .filter((i) => i.patientId === patientId)
        .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id - b.id))
        .map(copy),
    issue: async (invitation, retire) => {
      const pair = `${invitation.patientId}/${invitation.clientNumber}`;
      if (rows.has(invitation.tokenHash)) throw invitationCollision();
      if (numbers.has(invitation.id)) throw invitationNumberCollision();
      const current = currents.get(pair);
      const replaced = current === undefined ? undefined : copy(rows.get(current)!);
      const retired = replaced && retire(replaced.invitation);
      const retirement = replaced && retired ? changeOf(replaced, retired) : undefined;
      rows.set(invitation.tokenHash, { invitation: copy(invitation), version: 1 });
      numbers.set(invitation.id, invitation.tokenHash);
      currents.set(pair, invitation.tokenHash);
      retirement?.();
    },
    change: async (seen, fields) => changeOf(seen, fields)(),
    redeem: async (seen, fields, code) => {
      const storeCode = newCode(code);
      const change = changeOf(seen, fields);
      storeCode();
      change();
    },
  };
  return holding(records, { invitations: () => rows, invitationNumbers: () => numbers, currentInvitations: () => currents });
}
