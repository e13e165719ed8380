/** `/api/v1/data_sources`: the catalogue of devices and apps, and the codes each supports. */
import { z } from 'zod';
import { parseBody } from '../../shared/api/body';
import { id, requiredName } from '../../shared/api/fields';
import { CUSTOM_PAGING } from '../../shared/api/list';
import { authed, listRoute, itemRoutes, linkRoutes } from '../../shared/api/route';
import { DATA_SOURCE_TYPES } from '../../shared/directory/model';
import { json } from '../../shared/http/response';
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
  listRoute(BASE, CUSTOM_PAGING, (_req, caller, paging) => listDataSourcesFor(caller, paging)),
  authed('POST', BASE, async (req, caller) => json(201, await createDataSourceBy(caller, parseBody(newDataSource, req.body)))),
  authed('GET', `${BASE}/all_scopes`, async () => json(200, await allScopes())),
  ...itemRoutes(`${BASE}/{id}`, {
    read: readDataSource,
    replace: newDataSource,
    change: dataSourceChanges,
    update: updateDataSourceBy,
    remove: deleteDataSourceBy,
  }),
  ...linkRoutes(`${BASE}/{id}/supported_scopes`, {
    link: scopeCode,
    list: listSupportedScopes,
    add: (caller, id, body) => addSupportedScope(caller, id, body.scope_code_id),
    remove: (caller, id, body) => removeSupportedScope(caller, id, body.scope_code_id),
  }),
];
