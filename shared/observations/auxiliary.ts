/**
 * Where the Observation endpoints hand over to the auxiliary store: creates of anything that is
 * not a mobile-health Observation, searches with `_source` naming a FHIR Source, and reads of
 * auxiliary (UUID) ids. The auxiliary-store module provides the real functions; until it is wired
 * in, each answers 501 with an OperationOutcome that says so.
 */
import type { CreateAuxiliaryResource } from '../aux/types';
import { issue, operationOutcome } from '../fhir/outcome';
import { HttpError } from '../http/errors';
import type { HttpRequest } from '../http/request';
import type { HttpResponse } from '../http/response';

export interface AuxiliaryStore {
  create: CreateAuxiliaryResource;
  /** `GET|POST Observation[/_search]?_source=...` for any value but the native source URI. */
  search: (req: HttpRequest, type: string, params: URLSearchParams) => Promise<HttpResponse>;
  /** `GET Observation/<uuid>`. */
  read: (req: HttpRequest, type: string, id: string) => Promise<HttpResponse>;
}

const NOT_AVAILABLE = 'The auxiliary resource store is not available on this server yet.';

const notAvailable = () => new HttpError(501, NOT_AVAILABLE, 'not-supported');

export const AUXILIARY_NOT_AVAILABLE: AuxiliaryStore = {
  create: async () => ({ ok: false, status: 501, outcome: operationOutcome([issue('error', 'not-supported', NOT_AVAILABLE)]) }),
  search: async () => {
    throw notAvailable();
  },
  read: async () => {
    throw notAvailable();
  },
};
