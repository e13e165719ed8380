/** `/api/v1/data_sources`: the catalogue of devices and apps, and the codes each supports. */
import { parseBody } from '../../shared/api/body';
import { choice, id, optional, requiredName, strict } from '../../shared/api/fields';
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

const newDataSource = strict({ name: requiredName(), type: choice(DATA_SOURCE_TYPES) });
const dataSourceChanges = strict({ name: optional(requiredName()), type: optional(choice(DATA_SOURCE_TYPES)) });
const scopeCode = strict({ scope_code_id: id() });

export const dataSourceRoutes: Route[] = [
  listRoute(BASE, CUSTOM_PAGING, listDataSourcesFor),
  authed('POST', BASE, { forPractitioners: async (caller, req) => json(201, await createDataSourceBy(caller, parseBody(newDataSource, req.body))) }),
  authed('GET', `${BASE}/all_scopes`, async () => json(200, await allScopes())),
  ...itemRoutes(`${BASE}/{id}`, {
    read: readDataSource,
    replace: newDataSource,
    change: dataSourceChanges,
    update: { forPractitioners: updateDataSourceBy },
    remove: { forPractitioners: deleteDataSourceBy },
  }),
  ...linkRoutes(`${BASE}/{id}/supported_scopes`, {
    link: scopeCode,
    list: listSupportedScopes,
    add: { forPractitioners: (caller, id, body) => addSupportedScope(caller, id, body.scope_code_id) },
    remove: { forPractitioners: (caller, id, body) => removeSupportedScope(caller, id, body.scope_code_id) },
  }),
];
