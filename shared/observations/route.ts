/**
 * THE routing rule of every Observation write (batch upload, single create, R4 import): an
 * Observation coded in a mobile-health code system (Open mHealth or IEEE 1752, the systems whose
 * codes have payload schemas) is stored natively, and so is a sensor reading sent as FHIR (coded by
 * a standard code that names exactly what a payload would hold: a CGM's glucose in interstitial
 * fluid, whose payload the service derives); any other Observation goes to the auxiliary store with
 * the rest of the clinical record.
 */
import { IEEE_SYSTEM } from '../directory/codes';
import { OMH_SYSTEM } from '../fhir/constants';
import { sensorKindOf, type SensorKind } from '../omh/derived';

export const MOBILE_HEALTH_SYSTEMS: ReadonlySet<string> = new Set([OMH_SYSTEM, IEEE_SYSTEM]);

/** Where an Observation is written: stored natively as a reading, or as an auxiliary resource. */
export type ObservationDestination = 'native' | 'auxiliary';

function codingsOf(resource: unknown): Array<{ system?: unknown } | null> | undefined {
  const coding = (resource as { code?: { coding?: unknown } } | null)?.code?.coding;
  return Array.isArray(coding) ? coding : undefined;
}

const isMobileHealth = (coding: ReadonlyArray<{ system?: unknown } | null>) => coding.some((c) => typeof c?.system === 'string' && MOBILE_HEALTH_SYSTEMS.has(c.system));

/** Where an Observation (any JSON, valid or not) is written: by the systems of `code.coding`. */
export function routeObservation(resource: unknown): ObservationDestination {
  return isMobileHealth(codingsOf(resource) ?? []) || sensorKindsOf(resource).length > 0 ? 'native' : 'auxiliary';
}

/**
 * The sensor kinds a FHIR sensor reading's codings name (docs/payloads.md#derived-payloads); none
 * for an Observation that carries a mobile-health coding (its payload is its own) or no such coding.
 */
export function sensorKindsOf(resource: unknown): SensorKind[] {
  const coding = codingsOf(resource);
  if (!coding || isMobileHealth(coding)) return [];
  return coding.flatMap((c) => sensorKindOf(c) ?? []);
}
