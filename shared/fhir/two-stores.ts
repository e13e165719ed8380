/**
 * The types two stores serve (docs/api.md): Observation (the native readings, and the auxiliary
 * store's other Observations) and Device (the data sources' projection, and the Devices sent
 * through FHIR Sources). Which store a request is for is decided here, before anyone is asked:
 * an id by its form, a search by its `_source`.
 */
import { nativeSourceUri } from './constants';

/** The auxiliary store's ids are UUIDs; the service's own are numbers. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isAuxiliaryId = (id: string): boolean => UUID.test(id);

/** `_source` absent or naming the native store reads it; any other value (or `_source:below`) is the auxiliary store's. */
export function storeOfSearch(params: URLSearchParams): 'native' | 'auxiliary' {
  const sources = [...params].filter(([k]) => k === '_source' || k.startsWith('_source:'));
  if (sources.length === 0) return 'native';
  return sources.every(([k, v]) => k === '_source' && v === nativeSourceUri()) ? 'native' : 'auxiliary';
}
