/**
 * Device, a type two stores serve (`shared/fhir/two-stores.ts`): the data sources, a read-only
 * projection with numeric ids (managed through `/api/v1/data_sources`), and the Devices a FHIR
 * Source sends (a CGM sensor of a data submission, with its identifiers and serial number), stored
 * as sent in the auxiliary store with UUID ids. An id's form picks the store; a search reads the
 * data sources unless its `_source` names a FHIR Source; a create is always a sent Device.
 */
import { methodNotAllowed } from '../../http/errors';
import type { AuthedRequest, HttpRequest } from '../../http/request';
import type { HttpResponse } from '../../http/response';
import type { Access } from '../../http/router';
import type { FhirTypeEntry, FhirTypeHandlers, SearchParamCapability } from '../registry';
import { isAuxiliaryId, storeOfSearch } from '../two-stores';
import { deviceProjectionEntry } from './entries';

const READ_ONLY = 'Device/<number> is a data source, a read-only projection here; manage it through /api/v1/data_sources. Devices sent through a FHIR Source have UUID ids.';

const SOURCE_PARAM: SearchParamCapability = {
  name: '_source',
  type: 'uri',
  documentation: 'Absent or the native source: the data sources. A FHIR Source URI (or _source:below): the Devices sent through FHIR Sources, searched with every Device parameter R5 defines.',
};

/** The projection's parameters, then the sent Devices' others (which apply with `_source` naming FHIR Sources). */
function searchParams(sent: readonly SearchParamCapability[]): SearchParamCapability[] {
  const own = deviceProjectionEntry.searchParams().filter((p) => p.name !== '_source');
  const named = new Set([...own.map((p) => p.name), SOURCE_PARAM.name]);
  const only = sent.filter((p) => !named.has(p.name)).map((p) => ({ ...p, documentation: `Devices sent through FHIR Sources (with _source).${p.documentation ? ` ${p.documentation}` : ''}` }));
  return [...own, SOURCE_PARAM, ...only];
}

const forCaller = (handler: (req: AuthedRequest) => Promise<HttpResponse>): Access => ({ auth: 'caller', handler });

/** A data source never changes through FHIR, nor has versions: a 405 asked of no one, as every projection's. */
const notAllowed = (req: HttpRequest, allowed: string[]): never => {
  throw methodNotAllowed(req.method, req.path, allowed, READ_ONLY);
};

/** The Device entry over the auxiliary store's Device entry (its handlers and search parameters). */
export function deviceEntry(sent: FhirTypeEntry): FhirTypeEntry {
  if (sent.auth !== 'caller') throw new Error('the auxiliary store serves its Devices to callers');
  const auxiliary = sent.handlers as Required<FhirTypeHandlers>;
  if (deviceProjectionEntry.auth !== 'caller') throw new Error('the Device projection is served to callers');
  const projection = deviceProjectionEntry.handlers as Required<Pick<FhirTypeHandlers, 'read' | 'search'>>;
  const change = (interaction: 'update' | 'patch' | 'delete') => (req: HttpRequest, id: string) =>
    isAuxiliaryId(id) ? forCaller((r) => auxiliary[interaction](r, id)) : notAllowed(req, ['GET']);
  return {
    type: 'Device',
    readOnlyHint: READ_ONLY,
    documentation: 'Data sources (numeric ids) are a read-only projection, managed through /api/v1/data_sources; Devices sent through a FHIR Source (UUID ids) are stored as sent.',
    searchParams: () => searchParams(sent.searchParams()),
    auth: 'per-request',
    handlers: {
      read: (_req, id) => forCaller((r) => (isAuxiliaryId(id) ? auxiliary.read(r, id) : projection.read(r, id))),
      vread: (req, id, version) => (isAuxiliaryId(id) ? forCaller((r) => auxiliary.vread(r, id, version)) : notAllowed(req, [])),
      search: (_req, params) => forCaller((r) => (storeOfSearch(params) === 'auxiliary' ? auxiliary.search(r, params) : projection.search(r, params))),
      create: () => forCaller((r) => auxiliary.create(r)),
      update: change('update'),
      patch: change('patch'),
      delete: change('delete'),
    },
  };
}
