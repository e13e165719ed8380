/** `/api/v1/studies`: studies with their patients, requested codes ("scope requests") and data sources. */
import { z } from 'zod';
import { parseBody } from '../../shared/api/body';
import { id, ids, optionalUrl, requiredName, text } from '../../shared/api/fields';
import { CUSTOM_PAGING, listBody, pagingOf } from '../../shared/api/list';
import { authed, parseBodyOrQuery, parseQuery, pathId } from '../../shared/api/route';
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

const newStudy = z.strictObject({
  name: requiredName(MAX_STUDY_NAME),
  description: text().optional(),
  organization: id(),
  icon_url: optionalUrl().optional(),
});

const studyChanges = z.strictObject({
  name: requiredName(MAX_STUDY_NAME).optional(),
  description: text().optional(),
  organization: id().optional(),
  icon_url: optionalUrl().nullable().optional(),
});

const patientIds = z.strictObject({ patient_ids: ids() });
const scopeCode = z.strictObject({ scope_code_id: id() });
const dataSource = z.strictObject({ data_source_id: id() });

function changesOf(body: z.output<typeof studyChanges>) {
  return {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.description !== undefined ? { description: body.description } : {}),
    ...(body.organization !== undefined ? { organizationId: body.organization } : {}),
    ...(body.icon_url !== undefined ? { iconUrl: body.icon_url || null } : {}),
  };
}

export const studyRoutes: Route[] = [
  authed('GET', BASE, async (req, caller) => {
    const { organization_id } = parseQuery(z.strictObject({ organization_id: id().optional() }), req.query);
    const paging = pagingOf(req.query, CUSTOM_PAGING);
    return json(200, listBody(req, await listStudies(caller, organization_id, paging), paging));
  }),
  authed('POST', BASE, async (req, caller) => {
    const body = parseBody(newStudy, req.body);
    const study = await createStudyBy(caller, {
      name: body.name,
      organizationId: body.organization,
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.icon_url ? { iconUrl: body.icon_url } : {}),
    });
    return json(201, study);
  }),
  authed('GET', `${BASE}/{id}`, async (req, caller) => json(200, await readStudy(caller, pathId(req)))),
  ...(['PUT', 'PATCH'] as const).map((method) =>
    authed(method, `${BASE}/{id}`, async (req, caller) => {
      const body = method === 'PUT' ? parseBody(newStudy, req.body) : parseBody(studyChanges, req.body);
      return json(200, await updateStudyBy(caller, pathId(req), changesOf(body)));
    }),
  ),
  authed('DELETE', `${BASE}/{id}`, async (req, caller) => {
    await deleteStudyBy(caller, pathId(req));
    return noContent();
  }),

  authed('GET', `${BASE}/{id}/patients`, async (req, caller) => {
    const paging = pagingOf(req.query, CUSTOM_PAGING);
    return json(200, listBody(req, await listStudyPatients(caller, pathId(req), paging), paging));
  }),
  authed('POST', `${BASE}/{id}/patients`, async (req, caller) => {
    const body = parseBody(patientIds, req.body);
    return json(201, await enrollPatientsBy(caller, pathId(req), body.patient_ids));
  }),
  authed('DELETE', `${BASE}/{id}/patients`, async (req, caller) => {
    const body = parseBody(patientIds, req.body);
    await unenrollPatientsBy(caller, pathId(req), body.patient_ids);
    return noContent();
  }),

  authed('GET', `${BASE}/{id}/scope_requests`, async (req, caller) => json(200, await listScopeRequests(caller, pathId(req)))),
  authed('POST', `${BASE}/{id}/scope_requests`, async (req, caller) => {
    const body = parseBody(scopeCode, req.body);
    return json(201, await addScopeRequest(caller, pathId(req), body.scope_code_id));
  }),
  authed('DELETE', `${BASE}/{id}/scope_requests`, async (req, caller) => {
    await removeScopeRequest(caller, pathId(req), parseBodyOrQuery(scopeCode, req).scope_code_id);
    return noContent();
  }),

  authed('GET', `${BASE}/{id}/data_sources`, async (req, caller) => json(200, await listStudyDataSources(caller, pathId(req)))),
  authed('POST', `${BASE}/{id}/data_sources`, async (req, caller) => {
    const body = parseBody(dataSource, req.body);
    await addStudyDataSourceBy(caller, pathId(req), body.data_source_id);
    return json(201, {});
  }),
  authed('DELETE', `${BASE}/{id}/data_sources`, async (req, caller) => {
    await removeStudyDataSourceBy(caller, pathId(req), parseBodyOrQuery(dataSource, req).data_source_id);
    return noContent();
  }),
];

