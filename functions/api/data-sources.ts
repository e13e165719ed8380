/** `/api/v1/data_sources`: the catalogue of devices and apps, and the codes each supports. */
import { z } from 'zod';
import { parseBody } from '../../shared/api/body';
import { id, requiredName } from '../../shared/api/fields';
import { CUSTOM_PAGING, listBody, pagingOf } from '../../shared/api/list';
import { authed, parseBodyOrQuery, pathId } from '../../shared/api/route';
import { DATA_SOURCE_TYPES } from '../../shared/directory/model';
import { json, noContent } from '../../shared/http/response';
import type { Route } from '../../shared/http/router';
import {
  addSupportedScope,
  allScopes,
  createDataSourceBy,
  deleteDataSourceBy,
  listDataSourcesFor,
  listSupportedScopes,
  readDataSource,
  removeSupportedScope,
  updateDataSourceBy,
} from '../../shared/management/data-sources';

const BASE = '/api/v1/data_sources';

const newDataSource = z.strictObject({ name: requiredName(), type: z.enum(DATA_SOURCE_TYPES) });
const dataSourceChanges = z.strictObject({ name: requiredName().optional(), type: z.enum(DATA_SOURCE_TYPES).optional() });
const scopeCode = z.strictObject({ scope_code_id: id() });

export const dataSourceRoutes: Route[] = [
  authed('GET', BASE, async (req, caller) => {
    const paging = pagingOf(req.query, CUSTOM_PAGING);
    return json(200, listBody(req, await listDataSourcesFor(caller, paging), paging));
  }),
  authed('POST', BASE, async (req, caller) => json(201, await createDataSourceBy(caller, parseBody(newDataSource, req.body)))),
  authed('GET', `${BASE}/all_scopes`, async () => json(200, await allScopes())),
  authed('GET', `${BASE}/{id}`, async (req, caller) => json(200, await readDataSource(caller, pathId(req)))),
  ...(['PUT', 'PATCH'] as const).map((method) =>
    authed(method, `${BASE}/{id}`, async (req, caller) => {
      const body = method === 'PUT' ? parseBody(newDataSource, req.body) : parseBody(dataSourceChanges, req.body);
      return json(200, await updateDataSourceBy(caller, pathId(req), body));
    }),
  ),
  authed('DELETE', `${BASE}/{id}`, async (req, caller) => {
    await deleteDataSourceBy(caller, pathId(req));
    return noContent();
  }),
  authed('GET', `${BASE}/{id}/supported_scopes`, async (req, caller) => json(200, await listSupportedScopes(caller, pathId(req)))),
  authed('POST', `${BASE}/{id}/supported_scopes`, async (req, caller) => {
    const body = parseBody(scopeCode, req.body);
    return json(201, await addSupportedScope(caller, pathId(req), body.scope_code_id));
  }),
  authed('DELETE', `${BASE}/{id}/supported_scopes`, async (req, caller) => {
    await removeSupportedScope(caller, pathId(req), parseBodyOrQuery(scopeCode, req).scope_code_id);
    return noContent();
  }),
];
