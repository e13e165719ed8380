/** `/api/v1/practitioners`: practitioner accounts (superusers). */
import { parseBody } from '../../shared/api/body';
import { camelFields } from '../../shared/api/names';
import { bool, email, id, name, optional, plain, role, strict } from '../../shared/api/fields';
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
const password = () => plain(12, 128);

const newPractitioner = strict({
  telecom_email: email(),
  name_family: optional(name()),
  name_given: optional(name()),
  organization_id: optional(id()),
  role: optional(role()),
  password: optional(password()),
  is_superuser: optional(bool()),
});

const practitionerChanges = strict({
  telecom_email: optional(email()),
  name_family: optional(name()),
  name_given: optional(name()),
  password: optional(password()),
  is_superuser: optional(bool()),
  is_active: optional(bool()),
});

export const practitionerRoutes: Route[] = [
  listRoute(BASE, LARGE_PAGING, { forPractitioners: listPractitionersFor }),
  authed('POST', BASE, { forPractitioners: async (caller, req) => {
    const body = parseBody(newPractitioner, req.body);
    return json(201, await createPractitionerBy(caller, camelFields(body)));
  } }),
  ...itemRoutes(`${BASE}/{id}`, {
    read: { forPractitioners: readPractitionerFor },
    change: practitionerChanges,
    update: { forPractitioners: (caller, id, body) => updatePractitionerBy(caller, id, camelFields(body)) },
    remove: { forPractitioners: deletePractitionerBy },
  }),
];
