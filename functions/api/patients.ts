/** `/api/v1/patients`: the list, the record, `me`, organizations and consents. */
import { parseBody } from '../../shared/api/body';
import { camelFields } from '../../shared/api/names';
import { bool, date, email, extend, id, identifierValue, identifiers, list, name, nullable, optional, phone, plain, strict, type Output } from '../../shared/api/fields';
import { CUSTOM_PAGING } from '../../shared/api/list';
import { authed, listRoute, parseQuery, pathId } from '../../shared/api/route';
import { badRequest } from '../../shared/http/errors';
import { json, noContent } from '../../shared/http/response';
import type { Route } from '../../shared/http/router';
import { consentOverview, deleteConsentsBy, recordConsentsBy } from '../../shared/management/consents';
import {
  addPatientToOrganizationBy,
  createPatientIn,
  listPatients,
  notAPatient,
  ownPatient,
  readPatient,
  removePatientFrom,
  updatePatientBy,
} from '../../shared/management/patients';

const BASE = '/api/v1/patients';

const listQuery = strict({
  organization_id: optional(id()),
  study_id: optional(id()),
  patient_id: optional(id()),
  patient_identifier_value: optional(identifierValue()),
});

const organizationQuery = strict({ organization_id: optional(id()) });

const newPatient = strict({
  organization_id: id(),
  telecom_email: email(),
  name_family: optional(name()),
  name_given: optional(name()),
  birth_date: optional(date()),
  telecom_phone: optional(phone()),
  identifiers: optional(identifiers()),
});

/** PATCH: any field; `null` clears an optional one; `identifiers` replaces them all. */
const patientChanges = strict({
  name_family: optional(name()),
  name_given: optional(name()),
  birth_date: optional(nullable(date())),
  telecom_phone: optional(nullable(phone())),
  telecom_email: optional(nullable(email())),
  identifiers: optional(identifiers()),
});

/** PUT: the same, with the required field of a new patient. */
const patientReplacement = extend(patientChanges, { telecom_email: email() });

const coding = { coding_system: plain(1, 512), coding_code: plain(1, 512) };

const MAX_DECISIONS = 40;

const consentDecisions = strict({
  study_scope_consents: list(strict({ study_id: id(), scope_consents: list(strict({ ...coding, consented: bool() }), 1, MAX_DECISIONS) }), 1, MAX_DECISIONS),
});

const consentRemovals = strict({
  study_scope_consents: list(strict({ study_id: id(), scope_consents: optional(list(strict(coding), 0, MAX_DECISIONS)) }), 1, MAX_DECISIONS),
});

/** `?organization_id=`, which removals and additions must name. */
function requiredOrganization(query: URLSearchParams): number {
  const { organization_id } = parseQuery(organizationQuery, query);
  if (organization_id === undefined) throw badRequest('organizationId required', 'required', { apiBody: { detail: 'organizationId required' } });
  return organization_id;
}

function decisionsOf(body: Output<typeof consentDecisions>) {
  return body.study_scope_consents.map((s) => ({ studyId: s.study_id, scopeConsents: s.scope_consents.map(camelFields) }));
}

export const patientRoutes: Route[] = [
  listRoute(BASE, CUSTOM_PAGING, async (caller, paging, req) => {
    const q = parseQuery(listQuery, req.query);
    const filter = { organizationId: q.organization_id, studyId: q.study_id, patientId: q.patient_id, identifierValue: q.patient_identifier_value };
    const page = await listPatients(caller, filter, paging);
    req.audit.touched(page.items.map((p) => p.id));
    return page;
  }),
  authed('POST', BASE, { forPractitioners: async (caller, req) => {
    const body = parseBody(newPatient, req.body);
    const created = await createPatientIn(caller, camelFields(body));
    req.audit.touched([created.id]);
    return json(201, created);
  } }),
  authed('GET', `${BASE}/me`, { forPatients: async (caller) => json(200, await ownPatient(caller)), refusal: notAPatient }),
  authed('GET', `${BASE}/{id}`, async (caller, req) => json(200, await readPatient(caller, pathId(req)))),
  ...(['PUT', 'PATCH'] as const).map((method) =>
    authed(method, `${BASE}/{id}`, { forPractitioners: async (caller, req) => {
      const body = parseBody(method === 'PUT' ? patientReplacement : patientChanges, req.body);
      const { organization_id } = parseQuery(organizationQuery, req.query);
      return json(200, await updatePatientBy(caller, pathId(req), camelFields(body), organization_id));
    } }),
  ),
  authed('DELETE', `${BASE}/{id}`, { forPractitioners: async (caller, req) => {
    await removePatientFrom(caller, pathId(req), requiredOrganization(req.query));
    return noContent();
  } }),
  authed('PATCH', `${BASE}/{id}/global_add_organization`, { forPractitioners: async (caller, req) => {
    return json(200, await addPatientToOrganizationBy(caller, pathId(req), requiredOrganization(req.query)));
  } }),
  authed('GET', `${BASE}/{id}/consents`, async (caller, req) => json(200, await consentOverview(caller, pathId(req)))),
  ...(['POST', 'PATCH'] as const).map((method) =>
    authed(method, `${BASE}/{id}/consents`, async (caller, req) => {
      const body = parseBody(consentDecisions, req.body);
      return json(method === 'POST' ? 201 : 200, await recordConsentsBy(caller, pathId(req), decisionsOf(body)));
    }),
  ),
  authed('DELETE', `${BASE}/{id}/consents`, async (caller, req) => {
    const body = parseBody(consentRemovals, req.body);
    await deleteConsentsBy(
      caller,
      pathId(req),
      body.study_scope_consents.map((s) => ({ studyId: s.study_id, ...(s.scope_consents ? { scopeConsents: s.scope_consents.map(camelFields) } : {}) })),
    );
    return noContent();
  }),
];
