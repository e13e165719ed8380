/** `/api/v1/organizations`: the organization tree, its practitioners and studies. */
import { parseBody } from '../../shared/api/body';
import { choice, id, nullable, optional, requiredName, role, strict } from '../../shared/api/fields';
import { CUSTOM_PAGING } from '../../shared/api/list';
import { authed, listRoute, itemRoutes, parseBodyOrQuery, parseQuery, pathId } from '../../shared/api/route';
import { ORGANIZATION_TYPES, type OrganizationType } from '../../shared/directory/model';
import { fieldErrors } from '../../shared/http/errors';
import { json, noContent } from '../../shared/http/response';
import type { Route } from '../../shared/http/router';
import {
  createOrganizationBy,
  deleteOrganizationBy,
  listMembers,
  listOrganizationStudies,
  listOrganizationsFor,
  organizationTreeFor,
  organizationTypes,
  readOrganization,
  removeMember,
  setMemberRole,
  updateOrganizationBy,
} from '../../shared/management/organizations';

const BASE = '/api/v1/organizations';

const organizationType = () => choice(Object.keys(ORGANIZATION_TYPES) as [OrganizationType, ...OrganizationType[]]);

const newOrganization = strict({ name: requiredName(), type: organizationType(), part_of: optional(nullable(id())) });

const organizationChanges = strict({
  name: optional(requiredName()),
  type: optional(organizationType()),
  part_of: optional(nullable(id())),
});

/** The user and role of a membership; `jhe_user_id` and `organization_partitioner_role` are the names existing clients send. */
const membership = strict({
  user_id: optional(id()),
  jhe_user_id: optional(id()),
  role: optional(role()),
  organization_partitioner_role: optional(role()),
});

const member = strict({ user_id: optional(id()), jhe_user_id: optional(id()) });

function userIdOf(body: { user_id?: number | undefined; jhe_user_id?: number | undefined }): number {
  const userId = body.user_id ?? body.jhe_user_id;
  if (userId === undefined) throw fieldErrors({ userId: ['This field is required.'] });
  if (body.user_id !== undefined && body.jhe_user_id !== undefined && body.user_id !== body.jhe_user_id) {
    throw fieldErrors({ userId: ['Given twice with different values.'] });
  }
  return userId;
}

export const organizationRoutes: Route[] = [
  listRoute(BASE, CUSTOM_PAGING, (caller, paging, req) =>
    listOrganizationsFor(caller, parseQuery(strict({ part_of: optional(id()) }), req.query).part_of, paging),
  ),
  authed('POST', BASE, { forPractitioners: async (caller, req) => {
    const body = parseBody(newOrganization, req.body);
    return json(201, await createOrganizationBy(caller, { name: body.name, type: body.type, ...(body.part_of ? { partOf: body.part_of } : {}) }));
  } }),
  authed('GET', `${BASE}/types`, async () => json(200, organizationTypes())),
  ...itemRoutes(`${BASE}/{id}`, {
    read: readOrganization,
    replace: newOrganization,
    change: organizationChanges,
    update: { forPractitioners: (caller, id, body) => updateOrganizationBy(caller, id, { name: body.name, type: body.type, partOf: body.part_of }) },
    remove: { forPractitioners: deleteOrganizationBy },
  }),
  authed('GET', `${BASE}/{id}/tree`, async (caller, req) => json(200, await organizationTreeFor(caller, pathId(req)))),
  authed('GET', `${BASE}/{id}/users`, { forPractitioners: async (caller, req) => json(200, await listMembers(caller, pathId(req))) }),
  authed('GET', `${BASE}/{id}/studies`, async (caller, req) => json(200, await listOrganizationStudies(caller, pathId(req)))),
  authed('POST', `${BASE}/{id}/user`, { forPractitioners: async (caller, req) => {
    const body = parseBody(membership, req.body);
    const role = body.role ?? body.organization_partitioner_role;
    if (role === undefined) throw fieldErrors({ role: ['This field is required.'] });
    const { created, member: view } = await setMemberRole(caller, pathId(req), userIdOf(body), role);
    return json(created ? 201 : 200, view);
  } }),
  authed('DELETE', `${BASE}/{id}/remove_user`, { forPractitioners: async (caller, req) => {
    await removeMember(caller, pathId(req), userIdOf(parseBodyOrQuery(member, req)));
    return noContent();
  } }),
];
