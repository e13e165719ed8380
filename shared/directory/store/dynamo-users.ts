/**
 * Login accounts on the directory table: the user item (a practitioner's also on gsi1), its roles
 * as a map on it, and its email claim (`EMAIL#<address> / UNIQUE`) written in the same transaction.
 */
import { conflict } from '../../http/errors';
import { getItem, putNew, queryAll, remove, transact, update, withoutKeys, type Item, type Write } from '../../store/directory-table';
import { entityStore, pick } from '../../store/directory-entity';
import { newId } from '../ids';
import { GSI1, indexes, keys, KIND } from '../../store/directory-keys';
import type { Id, OrgRole, User } from '../model';
import { organizationMustExist } from './dynamo-relations';
import { memberItem } from './dynamo-memberships';
import { ACCOUNT_FIELDS, emailClaim, emailTaken, loginPatientNotFound, userNotFound, type UserRecords } from './port';

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
const userEntities = entityStore<User, Id>({ key: keys.user, toEntity: toUser, toItem, notFound: userNotFound });

const emailClaimItem = (user: Pick<User, 'id' | 'email'>): Write => putNew({ ...keys.email(user.email), userId: user.id }, emailTaken);

/** The writes that create an account: the user item, its email claim and the relation items of its roles. */
export function userWrites(user: User): Write[] {
  return [
    userEntities.create(user, () => conflict('User id collision.')),
    emailClaimItem(user),
    ...[...user.roles].flatMap(([orgId, role]) => [memberItem(orgId, user.id, role), organizationMustExist(orgId)]),
  ];
}

export const users: UserRecords = {
  newId: () => newId('user'),
  insert: (user) => transact(userWrites(user)),
  get: userEntities.get,
  getMany: userEntities.getMany,
  findByEmail: async (email) => {
    const claim = await getItem(keys.email(email));
    return claim ? userEntities.get(claim.userId as number) : undefined;
  },
  practitionerIds: async () => (await queryAll({ index: GSI1, pk: KIND.practitioner, attributes: ['id'] })).map((i) => i.id as number),
  read: userEntities.read,
  update: ({ entity: current, version }, next) =>
    transact([
      userEntities.setFields(next.id, pick(next, ACCOUNT_FIELDS), version),
      ...(emailClaim(next.email) !== emailClaim(current.email) ? [emailClaimItem(next), remove(keys.email(current.email))] : []),
    ]),
  setRevocations: ({ entity, version }, revocations) => transact([userEntities.setFields(entity.id, { revocations }, version)]),
  revokeTokens: (id, notBefore) =>
    transact([
      update(keys.user(id), 'SET #nb = :nb', { condition: 'attribute_exists(pk)', names: { '#nb': 'tokensNotBefore' }, values: { ':nb': notBefore } }, () => userNotFound(id)),
    ]),
  remove: async (id) => {
    const { entity: user, version } = await userEntities.read(id);
    await transact([
      userEntities.remove(id, version),
      remove(keys.email(user.email)),
      ...(user.patientId !== undefined
        ? [update(keys.patient(user.patientId), 'REMOVE #userId', { condition: 'attribute_exists(pk)', names: { '#userId': 'userId' } }, loginPatientNotFound)]
        : []),
    ]);
    // The user item is gone; only the relation items remain to clear.
    for (const orgId of user.roles.keys()) await transact([remove(keys.organizationMember(orgId, id))]);
  },
};
