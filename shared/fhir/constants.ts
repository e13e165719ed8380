/** Fixed FHIR facts of this service, in one place. */
import { config } from '../config';

export const FHIR_VERSION = '5.0.0';

/** Code system of mobile-health (Open mHealth) observation codes; routes an Observation to the native store. */
export const OMH_SYSTEM = 'https://w3id.org/openmhealth';

/*
 * The service's own URIs live under the deployment's namespace (`SERVICE_NAMESPACE`, CDK context
 * `namespace`) rather than a fixed domain, so no deployment stamps a domain it does not own into
 * stored data. They are functions because the namespace is a setting read at run time.
 */

/** `meta.source` of everything the service itself holds (native observations and projections). */
export const nativeSourceUri = (): string => `${config().namespace}/native`;

/** A FHIR Source's URI is this prefix followed by its numeric id (it ends with `/fhir-source/`). */
export const sourceUriPrefix = (): string => `${config().namespace}/fhir-source/`;

/** Header that names the FHIR Source of an auxiliary write (docs/api.md#writing); ignored on reads. */
export const SOURCE_HEADER = 'x-svc-fhir-source-id';

/** Code system of the service's own model concepts used in projections (study, data source). */
export const modelCodeSystem = (): string => `${config().namespace}/CodeSystem/model`;

/** Page size of a FHIR search without `_count` (docs/api.md#search-results-and-paging); the largest is `config().maxPageSize`. */
export const DEFAULT_PAGE_SIZE = 20;

/** Longest resource id R5 allows. */
export const MAX_ID_LENGTH = 64;

export function sourceUri(sourceId: string | number): string {
  return `${sourceUriPrefix()}${sourceId}`;
}
