/** `/api/v1/fhir_sources` (docs/api.md#management-api-apiv1): a patient's upstream FHIR servers. */
import { parseBody } from '../../shared/api/body';
import { id, name, optional, optionalUrl, strict, type Output } from '../../shared/api/fields';
import { CUSTOM_PAGING } from '../../shared/api/list';
import { authed, listRoute, itemRoutes } from '../../shared/api/route';
import { json } from '../../shared/http/response';
import type { Route } from '../../shared/http/router';
import {
  deleteOwnFhirSource,
  listOwnFhirSources,
  readOwnFhirSource,
  onlyPatientsRegister,
  registerFhirSource,
  updateOwnFhirSource,
} from '../../shared/management/fhir-sources';

const BASE = '/api/v1/fhir_sources';

const MAX_LABEL = 200;

const newSource = strict({ data_source: id(), label: optional(name(MAX_LABEL)), fhir_base_url: optional(optionalUrl()) });
const sourceChanges = strict({
  data_source: optional(id()),
  label: optional(name(MAX_LABEL)),
  fhir_base_url: optional(optionalUrl()),
});

function fieldsOf(body: Output<typeof sourceChanges>) {
  return {
    ...(body.data_source !== undefined ? { dataSourceId: body.data_source } : {}),
    ...(body.label !== undefined ? { label: body.label } : {}),
    ...(body.fhir_base_url !== undefined ? { fhirBaseUrl: body.fhir_base_url } : {}),
  };
}

export const fhirSourceRoutes: Route[] = [
  listRoute(BASE, CUSTOM_PAGING, listOwnFhirSources),
  authed('POST', BASE, {
    forPatients: async (caller, req) => {
      const body = parseBody(newSource, req.body);
      return json(201, await registerFhirSource(caller, { ...fieldsOf(body), dataSourceId: body.data_source }));
    },
    refusal: onlyPatientsRegister,
  }),
  ...itemRoutes(`${BASE}/{id}`, {
    read: readOwnFhirSource,
    replace: newSource,
    change: sourceChanges,
    update: (caller, id, body) => updateOwnFhirSource(caller, id, fieldsOf(body)),
    remove: deleteOwnFhirSource,
  }),
];
