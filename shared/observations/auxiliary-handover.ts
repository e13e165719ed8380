/**
 * Where the Observation endpoints hand over to the auxiliary resources: creates of anything that is
 * not a mobile-health Observation, searches with `_source` naming a FHIR Source, and the reads and
 * writes of auxiliary (UUID) ids. The auxiliary family provides the functions (`shared/auxiliary`,
 * built on its store port `shared/auxiliary/store/port.ts`); a deployment without it answers 501
 * with an OperationOutcome that says so.
 */
import type { CreateAuxiliaryResource } from '../auxiliary/types';
import type { FhirTypeHandlers } from '../fhir/registry';
import { issue, operationOutcome } from '../fhir/outcome';
import { HttpError } from '../http/errors';

export interface AuxiliaryHandover {
  create: CreateAuxiliaryResource;
  /** The auxiliary store's own Observation handlers: search (with `_source`), and reads and writes of its ids. */
  observation: FhirTypeHandlers;
}

const NOT_AVAILABLE = 'The auxiliary resource store is not available on this server.';

export const auxiliaryNotAvailable = () => new HttpError(501, NOT_AVAILABLE, 'not-supported');

export const AUXILIARY_NOT_AVAILABLE: AuxiliaryHandover = {
  create: async () => ({ ok: false, status: 501, outcome: operationOutcome([issue('error', 'not-supported', NOT_AVAILABLE)]) }),
  observation: {},
};
