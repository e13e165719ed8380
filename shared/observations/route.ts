/**
 * THE routing rule of every Observation write (batch upload, single create, R4 import): an
 * Observation coded in a mobile-health code system (Open mHealth or IEEE 1752, the systems whose
 * codes have payload schemas) is stored natively; any other Observation goes to the auxiliary
 * store with the rest of the clinical record.
 */
import { IEEE_SYSTEM } from '../directory/codes';
import { OMH_SYSTEM } from '../fhir/constants';

export const MOBILE_HEALTH_SYSTEMS: ReadonlySet<string> = new Set([OMH_SYSTEM, IEEE_SYSTEM]);

/** Where an Observation is written: stored natively as a reading, or as an auxiliary resource. */
export type ObservationDestination = 'native' | 'auxiliary';

/** Where an Observation (any JSON, valid or not) is written: by the systems of `code.coding`. */
export function routeObservation(resource: unknown): ObservationDestination {
  const coding = (resource as { code?: { coding?: unknown } } | null)?.code?.coding;
  if (!Array.isArray(coding)) return 'auxiliary';
  const mobileHealth = coding.some((c) => typeof c?.system === 'string' && MOBILE_HEALTH_SYSTEMS.has(c.system));
  return mobileHealth ? 'native' : 'auxiliary';
}
