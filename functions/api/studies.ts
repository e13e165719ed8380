/** `/api/v1/studies`: studies with their patients, requested codes ("scope requests") and data sources. */
import { parseBody } from '../../shared/api/body';
import { id, ids, nullable, optional, optionalUrl, requiredName, strict, text, type Output } from '../../shared/api/fields';
import { CUSTOM_PAGING } from '../../shared/api/list';
import { authed, listRoute, itemRoutes, linkRoutes, parseQuery, pathId } from '../../shared/api/route';
import { json, noContent } from '../../shared/http/response';
import type { Route } from '../../shared/http/router';
import {
  addScopeRequest,
  addStudyDataSourceBy,
  createStudyBy,
  deleteStudyBy,
  enrollPatientsBy,
  listScopeRequests,
  listStudies,
  listStudyDataSources,
  listStudyPatients,
  readStudy,
  removeScopeRequest,
  removeStudyDataSourceBy,
  unenrollPatientsBy,
  updateStudyBy,
} from '../../shared/management/studies';

const BASE = '/api/v1/studies';

const MAX_STUDY_NAME = 200;

const newStudy = strict({
  name: requiredName(MAX_STUDY_NAME),
  description: optional(text()),
  organization: id(),
  icon_url: optional(optionalUrl()),
});

const studyChanges = strict({
  name: optional(requiredName(MAX_STUDY_NAME)),
  description: optional(text()),
  organization: optional(id()),
  icon_url: optional(nullable(optionalUrl())),
});

const patientIds = strict({ patient_ids: ids() });
const scopeCode = strict({ scope_code_id: id() });
const dataSource = strict({ data_source_id: id() });

/** Absent fields stay as they are; an empty or null `icon_url` removes the icon. */
function changesOf(body: Output<typeof studyChanges>) {
  const iconUrl = body.icon_url === undefined ? undefined : body.icon_url || null;
  return { name: body.name, description: body.description, organizationId: body.organization, iconUrl };
}

export const studyRoutes: Route[] = [
  listRoute(BASE, CUSTOM_PAGING, (caller, paging, req) =>
    listStudies(caller, parseQuery(strict({ organization_id: optional(id()) }), req.query).organization_id, paging),
  ),
  authed('POST', BASE, { forPractitioners: async (caller, req) => {
    const body = parseBody(newStudy, req.body);
    const study = { name: body.name, organizationId: body.organization, description: body.description, iconUrl: body.icon_url || undefined };
    return json(201, await createStudyBy(caller, study));
  } }),
  ...itemRoutes(`${BASE}/{id}`, {
    read: readStudy,
    replace: newStudy,
    change: studyChanges,
    update: { forPractitioners: (caller, id, body) => updateStudyBy(caller, id, changesOf(body)) },
    remove: { forPractitioners: deleteStudyBy },
  }),

  listRoute(`${BASE}/{id}/patients`, CUSTOM_PAGING, { forPractitioners: (caller, paging, req) => listStudyPatients(caller, pathId(req), paging) }),
  authed('POST', `${BASE}/{id}/patients`, { forPractitioners: async (caller, req) => {
    const body = parseBody(patientIds, req.body);
    return json(201, await enrollPatientsBy(caller, pathId(req), body.patient_ids));
  } }),
  authed('DELETE', `${BASE}/{id}/patients`, { forPractitioners: async (caller, req) => {
    const body = parseBody(patientIds, req.body);
    await unenrollPatientsBy(caller, pathId(req), body.patient_ids);
    return noContent();
  } }),

  ...linkRoutes(`${BASE}/{id}/scope_requests`, {
    link: scopeCode,
    list: listScopeRequests,
    add: { forPractitioners: (caller, id, body) => addScopeRequest(caller, id, body.scope_code_id) },
    remove: { forPractitioners: (caller, id, body) => removeScopeRequest(caller, id, body.scope_code_id) },
  }),
  ...linkRoutes(`${BASE}/{id}/data_sources`, {
    link: dataSource,
    list: listStudyDataSources,
    add: { forPractitioners: (caller, id, body) => addStudyDataSourceBy(caller, id, body.data_source_id) },
    remove: { forPractitioners: (caller, id, body) => removeStudyDataSourceBy(caller, id, body.data_source_id) },
  }),
];

