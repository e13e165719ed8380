/** Organizations on the directory table: a tree through `partOf` (gsi2), every one on gsi1. */
import { conflict } from '../../http/errors';
import { batchGet, queryAll, transact } from '../../store/directory-table';
import { entityStore } from '../../store/directory-entity';
import { newId } from '../ids';
import { GSI1, idFromSortKey, indexes, keys, KIND, REL } from '../../store/directory-keys';
import type { Id, Organization } from '../model';
import { mustExist, relatedIds } from './dynamo-relations';
import { endMembership, membershipWrites } from './dynamo-memberships';
import { organizationInUse, organizationNotFound, parentNotFound, type OrganizationRecords } from './port';

const organizationEntities = entityStore<Organization, Id>({
  key: keys.organization,
  toItem: (org) => ({ ...keys.organization(org.id), ...indexes.organization(org.id, org.partOf), ...org }),
  notFound: organizationNotFound,
});

const parentMustExist = (parent: Id) => mustExist(keys.organization(parent), () => parentNotFound(parent));

const children = async (partOf: Id | undefined) => {
  const index = indexes.organizationChildren(partOf);
  return (await queryAll({ index: index.name, pk: index.pk })).map(organizationEntities.fromItem);
};

export const organizations: OrganizationRecords = {
  newId: () => newId('organization'),
  insert: (org, manager) =>
    transact([
      organizationEntities.create(org, () => conflict('Organization id collision.')),
      ...(org.partOf ? [parentMustExist(org.partOf)] : []),
      ...(manager ? membershipWrites(org.id, manager, 'manager') : []),
    ]),
  get: organizationEntities.get,
  getMany: organizationEntities.getMany,
  list: async () => (await queryAll({ index: GSI1, pk: KIND.organization })).map(organizationEntities.fromItem),
  children,
  read: organizationEntities.read,
  update: ({ entity: current, version }, next) =>
    transact([
      organizationEntities.replace(next, version),
      ...(next.partOf !== undefined && next.partOf !== current.partOf ? [parentMustExist(next.partOf)] : []),
    ]),
  remove: async (id) => {
    const { version } = await organizationEntities.read(id);
    const [subOrganizations, contents] = await Promise.all([children(id), queryAll({ pk: keys.organization(id).pk })]);
    const inUse = contents.filter((c) => String(c.sk).startsWith(REL.patient) || String(c.sk).startsWith(REL.study));
    if (subOrganizations.length > 0 || inUse.length > 0) throw organizationInUse();
    const members = contents.filter((c) => String(c.sk).startsWith(REL.member)).map((c) => idFromSortKey(String(c.sk)));
    // Memberships go first (a transaction holds at most 100 actions), the organization last.
    for (const userId of members) await endMembership(id, userId);
    await transact([organizationEntities.remove(id, version)]);
  },
  patientIds: (orgId) => relatedIds(keys.organization(orgId), REL.patient),
  membersAmong: async (orgId, patientIds) => {
    const members = await batchGet(patientIds.map((p) => keys.organizationPatient(orgId, p)));
    const found = new Set(members.map((m) => String(m.sk)));
    return patientIds.filter((p) => found.has(keys.organizationPatient(orgId, p).sk));
  },
  studyIds: (orgId) => relatedIds(keys.organization(orgId), REL.study),
};
