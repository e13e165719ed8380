/**
 * Organizations: a tree (`partOf`), each with a type. Practitioner memberships are in
 * `memberships.ts`, patient memberships in `patients.ts`, studies in `studies.ts`.
 */
import { badRequest } from '../http/errors';
import { now } from './fields';
import { ORGANIZATION_TYPES, type Id, type Organization, type OrganizationType } from './model';
import { directoryStore } from './store/current';

export { organizationNotFound } from './store/port';

export interface OrganizationInput {
  name: string;
  type: OrganizationType;
  partOf?: Id;
}

export type OrganizationPatch = Partial<Omit<OrganizationInput, 'partOf'>> & { partOf?: Id | null };

export interface OrganizationNode extends Organization {
  children: OrganizationNode[];
}

function assertType(type: string): void {
  if (!Object.hasOwn(ORGANIZATION_TYPES, type)) {
    throw badRequest(`Unknown organization type '${type}'.`, 'code-invalid', { fields: { type: [`"${type}" is not a valid choice.`] } });
  }
}

/**
 * Creates an organization; with `manager`, that practitioner becomes its manager in the same
 * transaction (the creator of a sub-organization manages it).
 */
export async function createOrganization(input: OrganizationInput, options: { manager?: Id } = {}): Promise<Organization> {
  assertType(input.type);
  const { organizations } = directoryStore();
  const at = now();
  const org: Organization = { id: await organizations.newId(), name: input.name, type: input.type, ...(input.partOf ? { partOf: input.partOf } : {}), createdAt: at, updatedAt: at };
  await organizations.insert(org, options.manager);
  return org;
}

export const getOrganization = (id: Id): Promise<Organization | undefined> => directoryStore().organizations.get(id);

/** Organizations for ids, in the order given; unknown ids are skipped. */
export const getOrganizations = (ids: readonly Id[]): Promise<Organization[]> => directoryStore().organizations.getMany(ids);

/** Every organization, in id order. */
export const listOrganizations = (): Promise<Organization[]> => directoryStore().organizations.list();

/** Direct children of an organization (`undefined`: the top-level organizations), in id order. */
export const listChildOrganizations = (partOf: Id | undefined): Promise<Organization[]> => directoryStore().organizations.children(partOf);

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
  const { organizations } = directoryStore();
  const read = await organizations.read(id);
  const current = read.entity;
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
  await organizations.update(read, next);
  return next;
}

/**
 * Deletes an organization that holds no sub-organizations, studies or patients (those must be
 * moved or removed first, so nothing is lost by accident); its practitioners lose their role there.
 */
export const deleteOrganization = (id: Id): Promise<void> => directoryStore().organizations.remove(id);
