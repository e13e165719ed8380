/**
 * Login accounts (users) and practitioners. A practitioner is a user of kind `practitioner`; its
 * roles per organization live on the user item (see `memberships.ts`). Emails are unique
 * case-insensitively through a claim item written in the same transaction as the account.
 */
import { badRequest, HttpError } from '../http/errors';
import { assertKeyText, now } from './fields';
import type { Id, OrgRole, Practitioner, User, UserKind } from './model';
import { directoryStore } from './store/current';

export { emailTaken, userNotFound } from './store/port';

export interface UserInput {
  email: string;
  passwordHash?: string;
  kind: UserKind;
  superuser?: boolean;
  nameFamily?: string;
  nameGiven?: string;
  active?: boolean;
  /** For a patient account: the patient record it logs in as. */
  patientId?: Id;
}

export interface UserPatch {
  email?: string;
  passwordHash?: string | null;
  superuser?: boolean;
  nameFamily?: string;
  nameGiven?: string;
  active?: boolean;
}

export interface PractitionerInput {
  email: string;
  passwordHash?: string;
  nameFamily?: string;
  nameGiven?: string;
  superuser?: boolean;
  /** Organizations to join at once, with a role in each. */
  organizations?: ReadonlyArray<{ organizationId: Id; role: OrgRole }>;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function normalizeEmail(email: string): string {
  const trimmed = email.trim();
  assertKeyText('email', trimmed);
  if (!EMAIL.test(trimmed)) throw badRequest('Enter a valid email address.', 'invalid', { fields: { email: ['Enter a valid email address.'] } });
  return trimmed;
}

/** A new account (not yet stored): the email checked, an id drawn, the defaults filled in. */
export async function newUser(input: UserInput): Promise<User> {
  const email = normalizeEmail(input.email);
  const at = now();
  return {
    id: await directoryStore().users.newId(),
    email,
    ...(input.passwordHash ? { passwordHash: input.passwordHash } : {}),
    kind: input.kind,
    superuser: input.superuser ?? false,
    nameFamily: input.nameFamily ?? '',
    nameGiven: input.nameGiven ?? '',
    active: input.active ?? true,
    ...(input.patientId !== undefined ? { patientId: input.patientId } : {}),
    roles: new Map(),
    createdAt: at,
    updatedAt: at,
  };
}

export async function createUser(input: UserInput): Promise<User> {
  const user = await newUser(input);
  await directoryStore().users.insert(user);
  return user;
}

/** The account, read strongly consistent (a deleted or deactivated account shows at once). */
export const getUser = (id: Id): Promise<User | undefined> => directoryStore().users.get(id);

/** Accounts for ids, in the order given; unknown ids are skipped. */
export const getUsers = (ids: readonly Id[]): Promise<User[]> => directoryStore().users.getMany(ids);

export async function getUserByEmail(email: string): Promise<User | undefined> {
  if (!EMAIL.test(email.trim())) return undefined;
  return directoryStore().users.findByEmail(email);
}

export async function updateUser(id: Id, patch: UserPatch): Promise<User> {
  const { users } = directoryStore();
  const read = await users.read(id);
  const current = read.entity;
  const email = patch.email === undefined ? current.email : normalizeEmail(patch.email);
  const { passwordHash: _hash, ...rest } = current;
  const passwordHash = patch.passwordHash === undefined ? current.passwordHash : (patch.passwordHash ?? undefined);
  const next: User = {
    ...rest,
    email,
    ...(passwordHash ? { passwordHash } : {}),
    ...(patch.superuser !== undefined ? { superuser: patch.superuser } : {}),
    ...(patch.nameFamily !== undefined ? { nameFamily: patch.nameFamily } : {}),
    ...(patch.nameGiven !== undefined ? { nameGiven: patch.nameGiven } : {}),
    ...(patch.active !== undefined ? { active: patch.active } : {}),
    // A changed or removed password or a deactivation ends every session: tokens issued before now
    // are refused. A first password (an account that signed in by invitation only) ends none: no
    // session began with a password, and the invitation's own sessions (the portal's) go on.
    ...((patch.passwordHash !== undefined && current.passwordHash !== undefined) || patch.active === false ? { tokensNotBefore: Math.floor(Date.now() / 1000) } : {}),
    updatedAt: now(),
  };
  await users.update(read, next);
  return next;
}

/** Refuses every access token of the user issued before now (log out everywhere). */
export const revokeUserTokens = (id: Id): Promise<void> => directoryStore().users.revokeTokens(id, Math.floor(Date.now() / 1000));

/**
 * Adds revocations (`sid:<grant>` / `jti:<token>` -> epoch second they may be forgotten) to the
 * user item, dropping those already past, so the map stays as small as the live tokens it names.
 * Optimistic (version condition), retried on a concurrent change; an unknown user needs nothing.
 */
export async function addRevocations(id: Id, entries: Readonly<Record<string, number>>, nowSeconds = Math.floor(Date.now() / 1000)): Promise<void> {
  const { users } = directoryStore();
  for (let attempt = 0; ; attempt += 1) {
    const read = await users.read(id).catch((e: unknown) => {
      if (e instanceof HttpError && e.status === 404) return undefined;
      throw e;
    });
    if (!read) return;
    const next = Object.fromEntries(Object.entries({ ...read.entity.revocations, ...entries }).filter(([, until]) => until > nowSeconds));
    try {
      await users.setRevocations(read, next);
      return;
    } catch (e) {
      if (!(e instanceof HttpError && e.status === 409) || attempt >= 5) throw e;
    }
  }
}

/**
 * Deletes an account: its tokens stop working at once. A practitioner leaves every organization;
 * a patient record keeps existing without a login.
 */
export const deleteUser = (id: Id): Promise<void> => directoryStore().users.remove(id);

// --- practitioners ----------------------------------------------------------------------------

function asPractitioner(user: User | undefined): Practitioner | undefined {
  return user?.kind === 'practitioner' ? (user as Practitioner) : undefined;
}

/** Memberships a practitioner can be created with in one transaction (2 actions each, beside the account's 2). */
const MAX_INITIAL_ORGANIZATIONS = 49;

/** A practitioner account, optionally joining organizations with roles, in one transaction. */
export async function createPractitioner(input: PractitionerInput): Promise<Practitioner> {
  const roles = new Map((input.organizations ?? []).map((m) => [m.organizationId, m.role] as const));
  if (roles.size > MAX_INITIAL_ORGANIZATIONS) throw badRequest(`A new practitioner may join at most ${MAX_INITIAL_ORGANIZATIONS} organizations at once.`, 'too-costly');
  const practitioner = { ...(await newUser({ ...input, kind: 'practitioner' })), roles } as Practitioner;
  await directoryStore().users.insert(practitioner);
  return practitioner;
}

export async function getPractitioner(id: Id): Promise<Practitioner | undefined> {
  return asPractitioner(await getUser(id));
}

export async function getPractitioners(ids: readonly Id[]): Promise<Practitioner[]> {
  return (await getUsers(ids)).filter((u): u is Practitioner => u.kind === 'practitioner');
}

/** Every practitioner's id, ascending. */
export const listPractitionerIds = (): Promise<Id[]> => directoryStore().users.practitionerIds();
