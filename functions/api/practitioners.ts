/** `/api/v1/practitioners`: practitioner accounts (superusers). */
import { z } from 'zod';
import { parseBody } from '../../shared/api/body';
import { camelFields } from '../../shared/api/names';
import { email, id, name, role } from '../../shared/api/fields';
import { LARGE_PAGING } from '../../shared/api/list';
import { authed, listRoute, itemRoutes } from '../../shared/api/route';
import { json } from '../../shared/http/response';
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
  listRoute(BASE, LARGE_PAGING, (_req, caller, paging) => listPractitionersFor(caller, paging)),
  authed('POST', BASE, async (req, caller) => {
    const body = parseBody(newPractitioner, req.body);
    return json(201, await createPractitionerBy(caller, camelFields(body)));
  }),
  ...itemRoutes(`${BASE}/{id}`, {
    read: readPractitionerFor,
    change: practitionerChanges,
    update: (caller, id, body) => updatePractitionerBy(caller, id, camelFields(body)),
    remove: deletePractitionerBy,
  }),
];
