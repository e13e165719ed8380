/**
 * Login accounts (users) and practitioners. A practitioner is a user of kind `practitioner`; its
 * roles per organization live on the user item (see `memberships.ts`). Emails are unique
 * case-insensitively through a claim item written in the same transaction as the account.
 */
import { badRequest, conflict, HttpError, notFound } from '../http/errors';
import {
  assertKeyText,
  getItem,
  now,
  putNew,
  queryAll,
  remove,
  transact,
  update,
  withoutKeys,
  type Item,
  type Write,
} from './db';
import { entityStore, pick } from './entity';
import { newId } from './ids';
import { GSI1, indexes, keys, KIND } from './keys';
import { membershipRemovalWrites, membershipWrites, organizationMustExist } from './memberships';
import type { Id, OrgRole, Practitioner, User, UserKind } from './model';

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

export const emailTaken = () =>
  conflict('A user with this email already exists.', { fields: { email: ['A user with this email already exists.'] } });

export const userNotFound = (id: Id) => notFound(`User ${id} not found.`);

export function normalizeEmail(email: string): string {
  const trimmed = email.trim();
  assertKeyText('email', trimmed);
  if (!EMAIL.test(trimmed)) throw badRequest('Enter a valid email address.', 'invalid', { fields: { email: ['Enter a valid email address.'] } });
  return trimmed;
}

function toUser(item: Item): User {
  const { roles, ...rest } = withoutKeys(item) as Record<string, unknown>;
  const map = new Map<Id, OrgRole>();
  for (const [org, role] of Object.entries((roles ?? {}) as Record<string, OrgRole>)) map.set(Number(org), role);
  return { ...(rest as unknown as Omit<User, 'roles'>), roles: map };
}

function toItem(user: User): Item {
  const { roles, ...rest } = user;
  return {
    ...keys.user(user.id),
    ...(user.kind === 'practitioner' ? indexes.practitionerUser(user.id) : {}),
    ...rest,
    roles: Object.fromEntries([...roles].map(([org, role]) => [String(org), role])),
  };
}

/** Roles change through membership writes; account updates use `setFields`, never `replace`. */
const users = entityStore<User, Id>({ key: keys.user, toEntity: toUser, toItem, notFound: userNotFound });

/** A new account (not yet written) and the writes that create it with its email claim. */
export async function newUserWrites(input: UserInput): Promise<{ user: User; writes: Write[] }> {
  const email = normalizeEmail(input.email);
  const id = await newId('user');
  const at = now();
  const user: User = {
    id,
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
  return {
    user,
    writes: [
      users.create(user, () => conflict('User id collision.')),
      putNew({ ...keys.email(email), userId: id }, emailTaken),
    ],
  };
}

export async function createUser(input: UserInput): Promise<User> {
  const { user, writes } = await newUserWrites(input);
  await transact(writes);
  return user;
}

/** The account, read strongly consistent (a deleted or deactivated account shows at once). */
export const getUser = users.get;

/** Accounts for ids, in the order given; unknown ids are skipped. */
export const getUsers = users.getMany;

export async function getUserByEmail(email: string): Promise<User | undefined> {
  if (!EMAIL.test(email.trim())) return undefined;
  const claim = await getItem(keys.email(email));
  return claim ? getUser(claim.userId as number) : undefined;
}

export async function updateUser(id: Id, patch: UserPatch): Promise<User> {
  const { entity: current, version } = await users.read(id);
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
    // A new password or a deactivation ends every session: tokens issued before now are refused.
    ...(patch.passwordHash !== undefined || patch.active === false ? { tokensNotBefore: Math.floor(Date.now() / 1000) } : {}),
    updatedAt: now(),
  };
  const emailChanged = keys.email(email).pk !== keys.email(current.email).pk;
  await transact([
    users.setFields(id, pick(next, ['email', 'passwordHash', 'superuser', 'nameFamily', 'nameGiven', 'active', 'tokensNotBefore', 'updatedAt']), version),
    ...(emailChanged ? [putNew({ ...keys.email(email), userId: id }, emailTaken), remove(keys.email(current.email))] : []),
  ]);
  return next;
}

/** Refuses every access token of the user issued before now (log out everywhere). */
export async function revokeUserTokens(id: Id): Promise<void> {
  await transact([
    update(keys.user(id), 'SET #nb = :nb', { condition: 'attribute_exists(pk)', names: { '#nb': 'tokensNotBefore' }, values: { ':nb': Math.floor(Date.now() / 1000) } }, () =>
      userNotFound(id),
    ),
  ]);
}

/**
 * Adds revocations (`sid:<grant>` / `jti:<token>` -> epoch second they may be forgotten) to the
 * user item, dropping those already past, so the map stays as small as the live tokens it names.
 * Optimistic (version condition), retried on a concurrent change; an unknown user needs nothing.
 */
export async function addRevocations(id: Id, entries: Readonly<Record<string, number>>, nowSeconds = Math.floor(Date.now() / 1000)): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    const item = await getItem(keys.user(id));
    if (!item) return;
    const current = (item.revocations ?? {}) as Record<string, number>;
    const next = Object.fromEntries(Object.entries({ ...current, ...entries }).filter(([, until]) => until > nowSeconds));
    try {
      await transact([users.setFields(id, { revocations: next }, item.version as number)]);
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
export async function deleteUser(id: Id): Promise<void> {
  const { entity: user, version } = await users.read(id);
  await transact([
    users.remove(id, version),
    remove(keys.email(user.email)),
    ...(user.patientId !== undefined
      ? [update(keys.patient(user.patientId), 'REMOVE #userId', { condition: 'attribute_exists(pk)', names: { '#userId': 'userId' } }, () => notFound('Patient not found.'))]
      : []),
  ]);
  for (const orgId of user.roles.keys()) {
    // The user item is gone; only the relation items remain to clear.
    await transact(membershipRemovalWrites(orgId, id).slice(0, 1));
  }
}

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
  const { user, writes } = await newUserWrites({ ...input, kind: 'practitioner' });
  const practitioner = { ...user, roles } as Practitioner;
  // The user item is written with its roles already; only relation items and org checks are added.
  writes[0] = users.create(practitioner, () => conflict('User id collision.'));
  await transact([
    ...writes,
    ...[...roles].flatMap(([organizationId, role]) => [membershipWrites(organizationId, user.id, role)[0]!, organizationMustExist(organizationId)]),
  ]);
  return practitioner;
}

export async function getPractitioner(id: Id): Promise<Practitioner | undefined> {
  return asPractitioner(await getUser(id));
}

export async function getPractitioners(ids: readonly Id[]): Promise<Practitioner[]> {
  return (await getUsers(ids)).filter((u): u is Practitioner => u.kind === 'practitioner');
}

/** Every practitioner's id, ascending. */
export async function listPractitionerIds(): Promise<Id[]> {
  return (await queryAll({ index: GSI1, pk: KIND.practitioner, attributes: ['id'] })).map((i) => i.id as number);
}
