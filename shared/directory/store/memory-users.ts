/** The in-memory twin of the login accounts and their email claims. */
import { counter, readThrough } from '../../store/memory';
import { pick } from '../../store/directory-entity';
import type { User } from '../model';
import { assertOrganization } from './memory-organizations';
import type { MemoryTables } from './memory-tables';
import { ACCOUNT_FIELDS, emailClaim, emailTaken, loginPatientNotFound, type UserRecords } from './port';

/** Refuses a new account as storing it would: a taken email, then an unknown organization of its roles. */
export function assertNewAccount(t: MemoryTables, user: User): void {
  if (t.emails.has(emailClaim(user.email))) throw emailTaken();
  for (const orgId of user.roles.keys()) assertOrganization(t, orgId);
}

export function storeAccount(t: MemoryTables, user: User): void {
  t.users.insert(user);
  t.emails.set(emailClaim(user.email), user.id);
}

/** Deletes the account and frees its email. */
export function dropAccount(t: MemoryTables, user: User): void {
  t.users.remove(user.id);
  t.emails.delete(emailClaim(user.email));
}

export function memoryUsers(t: MemoryTables): UserRecords {
  const { users, emails } = t;
  return {
    newId: counter(),
    insert: async (user) => {
      assertNewAccount(t, user);
      storeAccount(t, user);
    },
    get: users.get,
    getMany: users.getMany,
    findByEmail: async (email) => readThrough(emails, users.get)(emailClaim(email)),
    practitionerIds: async () => users.all().filter((u) => u.kind === 'practitioner').map((u) => u.id),
    read: users.read,
    update: async (read, next) => {
      users.assertAt(read);
      const [before, after] = [emailClaim(read.entity.email), emailClaim(next.email)];
      if (after !== before && emails.has(after)) throw emailTaken();
      users.setFields(read, pick(next, ACCOUNT_FIELDS));
      emails.delete(before);
      emails.set(after, next.id);
    },
    setRevocations: async (read, revocations) => users.setFields(read, { revocations }),
    revokeTokens: async (id, notBefore) => void (users.stored(id).tokensNotBefore = notBefore),
    remove: async (id) => {
      const user = users.stored(id);
      if (user.patientId !== undefined && !t.patients.has(user.patientId)) throw loginPatientNotFound();
      dropAccount(t, user);
      if (user.patientId !== undefined) delete t.patients.stored(user.patientId).userId;
    },
  };
}
