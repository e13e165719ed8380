/** `/api/v1/practitioners`: practitioner accounts (superusers). */
import { z } from 'zod';
import { parseBody } from '../../shared/api/body';
import { email, id, name, role } from '../../shared/api/fields';
import { LARGE_PAGING, listBody, pagingOf } from '../../shared/api/list';
import { authed, pathId } from '../../shared/api/route';
import { json, noContent } from '../../shared/http/response';
import type { Route } from '../../shared/http/router';
import {
  createPractitionerBy,
  deletePractitionerBy,
  listPractitionersFor,
  readPractitionerFor,
  updatePractitionerBy,
} from '../../shared/management/practitioners';

const BASE = '/api/v1/practitioners';

/** Passwords: long enough to resist guessing, short enough to hash cheaply. */
const password = () => z.string().min(12).max(128);

const newPractitioner = z.strictObject({
  telecom_email: email(),
  name_family: name().optional(),
  name_given: name().optional(),
  organization_id: id().optional(),
  role: role().optional(),
  password: password().optional(),
  is_superuser: z.boolean().optional(),
});

const practitionerChanges = z.strictObject({
  telecom_email: email().optional(),
  name_family: name().optional(),
  name_given: name().optional(),
  password: password().optional(),
  is_superuser: z.boolean().optional(),
  is_active: z.boolean().optional(),
});

export const practitionerRoutes: Route[] = [
  authed('GET', BASE, async (req, caller) => {
    const paging = pagingOf(req.query, LARGE_PAGING);
    return json(200, listBody(req, await listPractitionersFor(caller, paging), paging));
  }),
  authed('POST', BASE, async (req, caller) => {
    const body = parseBody(newPractitioner, req.body);
    const created = await createPractitionerBy(caller, {
      telecomEmail: body.telecom_email,
      ...(body.name_family !== undefined ? { nameFamily: body.name_family } : {}),
      ...(body.name_given !== undefined ? { nameGiven: body.name_given } : {}),
      ...(body.organization_id !== undefined ? { organizationId: body.organization_id } : {}),
      ...(body.role !== undefined ? { role: body.role } : {}),
      ...(body.password !== undefined ? { password: body.password } : {}),
      ...(body.is_superuser !== undefined ? { superuser: body.is_superuser } : {}),
    });
    return json(201, created);
  }),
  authed('GET', `${BASE}/{id}`, async (req, caller) => json(200, await readPractitionerFor(caller, pathId(req)))),
  authed('PATCH', `${BASE}/{id}`, async (req, caller) => {
    const body = parseBody(practitionerChanges, req.body);
    const changed = await updatePractitionerBy(caller, pathId(req), {
      ...(body.telecom_email !== undefined ? { telecomEmail: body.telecom_email } : {}),
      ...(body.name_family !== undefined ? { nameFamily: body.name_family } : {}),
      ...(body.name_given !== undefined ? { nameGiven: body.name_given } : {}),
      ...(body.password !== undefined ? { password: body.password } : {}),
      ...(body.is_superuser !== undefined ? { superuser: body.is_superuser } : {}),
      ...(body.is_active !== undefined ? { active: body.is_active } : {}),
    });
    return json(200, changed);
  }),
  authed('DELETE', `${BASE}/{id}`, async (req, caller) => {
    await deletePractitionerBy(caller, pathId(req));
    return noContent();
  }),
];
