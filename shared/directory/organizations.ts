/**
 * Organizations: a tree (`partOf`), each with a type. Practitioner memberships are in
 * `memberships.ts`, patient memberships in `patients.ts`, studies in `studies.ts`.
 */
import { badRequest, conflict, notFound } from '../http/errors';
import { check, now, queryAll, transact } from './db';
import { entityStore } from './entity';
import { newId } from './ids';
import { GSI1, idFromSortKey, indexes, keys, KIND, REL } from './keys';
import { ORGANIZATION_TYPES, type Id, type Organization, type OrganizationType } from './model';
import { endMembership, membershipWrites } from './memberships';

export interface OrganizationInput {
  name: string;
  type: OrganizationType;
  partOf?: Id;
}

export type OrganizationPatch = Partial<Omit<OrganizationInput, 'partOf'>> & { partOf?: Id | null };

export interface OrganizationNode extends Organization {
  children: OrganizationNode[];
}

export const organizationNotFound = (id: Id) => notFound(`Organization ${id} not found.`);

const organizations = entityStore<Organization, Id>({
  key: keys.organization,
  toItem: (org) => ({ ...keys.organization(org.id), ...indexes.organization(org.id, org.partOf), ...org }),
  notFound: organizationNotFound,
});

function assertType(type: string): void {
  if (!Object.hasOwn(ORGANIZATION_TYPES, type)) {
    throw badRequest(`Unknown organization type '${type}'.`, 'code-invalid', { fields: { type: [`"${type}" is not a valid choice.`] } });
  }
}

const parentMustExist = (parent: Id) =>
  check(keys.organization(parent), 'attribute_exists(pk)', {}, () =>
    badRequest(`Parent organization ${parent} not found.`, 'not-found', { fields: { partOf: [`Invalid pk "${parent}" - object does not exist.`] } }),
  );

/**
 * Creates an organization; with `manager`, that practitioner becomes its manager in the same
 * transaction (the creator of a sub-organization manages it).
 */
export async function createOrganization(input: OrganizationInput, options: { manager?: Id } = {}): Promise<Organization> {
  assertType(input.type);
  const id = await newId('organization');
  const at = now();
  const org: Organization = { id, name: input.name, type: input.type, ...(input.partOf ? { partOf: input.partOf } : {}), createdAt: at, updatedAt: at };
  await transact([
    organizations.create(org, () => conflict('Organization id collision.')),
    ...(org.partOf ? [parentMustExist(org.partOf)] : []),
    ...(options.manager ? membershipWrites(id, options.manager, 'manager') : []),
  ]);
  return org;
}

export const getOrganization = organizations.get;

/** Organizations for ids, in the order given; unknown ids are skipped. */
export const getOrganizations = organizations.getMany;

/** Every organization, in id order. */
export async function listOrganizations(): Promise<Organization[]> {
  return (await queryAll({ index: GSI1, pk: KIND.organization })).map(organizations.fromItem);
}

/** Direct children of an organization (`undefined`: the top-level organizations), in id order. */
export async function listChildOrganizations(partOf: Id | undefined): Promise<Organization[]> {
  const index = indexes.organizationChildren(partOf);
  return (await queryAll({ index: index.name, pk: index.pk })).map(organizations.fromItem);
}

/** An organization with its whole subtree. */
export async function organizationTree(id: Id): Promise<OrganizationNode | undefined> {
  const root = await getOrganization(id);
  if (!root) return undefined;
  const grow = async (org: Organization): Promise<OrganizationNode> => ({
    ...org,
    children: await Promise.all((await listChildOrganizations(org.id)).map(grow)),
  });
  return grow(root);
}

/** The chain of parents of an organization, nearest first. */
export async function ancestorsOf(id: Id): Promise<Organization[]> {
  const chain: Organization[] = [];
  let current = await getOrganization(id);
  while (current?.partOf !== undefined) {
    const parent = await getOrganization(current.partOf);
    if (!parent || chain.some((o) => o.id === parent.id)) break;
    chain.push(parent);
    current = parent;
  }
  return chain;
}

export async function updateOrganization(id: Id, patch: OrganizationPatch): Promise<Organization> {
  if (patch.type !== undefined) assertType(patch.type);
  const { entity: current, version } = await organizations.read(id);
  const partOf = patch.partOf === undefined ? current.partOf : (patch.partOf ?? undefined);
  if (partOf !== undefined && partOf !== current.partOf) {
    if (partOf === id || (await ancestorsOf(partOf)).some((o) => o.id === id)) {
      throw badRequest('An organization cannot be part of itself or of one of its sub-organizations.', 'invalid', {
        fields: { partOf: ['This would make the organization tree a cycle.'] },
      });
    }
  }
  const { partOf: _old, ...rest } = current;
  const next: Organization = {
    ...rest,
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.type !== undefined ? { type: patch.type } : {}),
    ...(partOf !== undefined ? { partOf } : {}),
    updatedAt: now(),
  };
  await transact([
    organizations.replace(next, version),
    ...(partOf !== undefined && partOf !== current.partOf ? [parentMustExist(partOf)] : []),
  ]);
  return next;
}

/**
 * Deletes an organization that holds no sub-organizations, studies or patients (those must be
 * moved or removed first, so nothing is lost by accident); its practitioners lose their role there.
 */
export async function deleteOrganization(id: Id): Promise<void> {
  const { version } = await organizations.read(id);
  const [children, contents] = await Promise.all([listChildOrganizations(id), queryAll({ pk: keys.organization(id).pk })]);
  const inUse = contents.filter((c) => String(c.sk).startsWith(REL.patient) || String(c.sk).startsWith(REL.study));
  if (children.length > 0 || inUse.length > 0) {
    throw conflict('The organization still has sub-organizations, studies or patients; remove them first.');
  }
  const members = contents.filter((c) => String(c.sk).startsWith(REL.member)).map((c) => idFromSortKey(String(c.sk)));
  // Memberships go first (a transaction holds at most 100 actions), the organization last.
  for (const userId of members) await endMembership(id, userId);
  await transact([organizations.remove(id, version)]);
}
