/**
 * A stored reading as a FHIR R5 Observation (docs/api.md#effective-time-and-rendering): id, meta (lastUpdated, the native source),
 * identifiers, status as uploaded, the category (vital signs, activity), the code with its display and, after it, the reading's standard
 * coding (LOINC; for a blood glucose by its unit and specimen), subject, device, the lifted effective time, the payload attachment byte for byte,
 * and the lifted values as components.
 */
import type { Code } from '../directory/model';
import { modelCodeSystem, nativeSourceUri } from '../fhir/constants';
import { fhirEffective } from '../omh/effective-time';
import { categoryOf, OBSERVATION_CATEGORY_SYSTEM } from '../omh/categories';
import { schemaQuantities, type StandardCoding } from '../omh/quantities';
import type { StoredObservation } from './model';
import { componentsOf, readingCodings, readingValues, renderedPayloadFacts } from './values';

export type FhirObservation = Record<string, unknown> & { resourceType: 'Observation'; id: string };

/** A code of the table as a Coding, with its display. */
export const codeCoding = (code: Pick<Code, 'system' | 'code' | 'display'>): StandardCoding => ({ system: code.system, code: code.code, display: code.display });

/**
 * A reading's `Observation.code`: the code with its display, then its standard coding (LOINC) when
 * it has one: the schema's, or the one a reading's units and specimen choose (a blood glucose).
 */
export function readingCode(code: Pick<Code, 'system' | 'code' | 'display'>, standard: StandardCoding | undefined = schemaQuantities(code.code)?.coding): { coding: StandardCoding[] } {
  return { coding: [codeCoding(code), ...(standard ? [{ ...standard }] : [])] };
}

export function toFhirObservation(o: StoredObservation, code: Code): FhirObservation {
  const quantities = schemaQuantities(code.code);
  const values = quantities ? readingValues(o, code.code) : [];
  // The standard codings follow what was measured: the values' units and, for a blood glucose, the specimen its payload names.
  const payload = quantities ? renderedPayloadFacts(o, quantities) : undefined;
  const codings = quantities ? readingCodings(quantities, values, payload?.specimen) : undefined;
  const components = codings ? componentsOf(values, codings) : [];
  const category = categoryOf(code.code);
  return {
    resourceType: 'Observation',
    id: String(o.id),
    meta: { lastUpdated: o.lastUpdated, source: nativeSourceUri(), ...(payload?.derived ? { tag: [derivedTag()] } : {}) },
    ...(o.identifiers.length > 0 ? { identifier: o.identifiers.map((i) => ({ ...(i.system !== undefined ? { system: i.system } : {}), value: i.value })) } : {}),
    status: o.status,
    ...(category ? { category: [{ coding: [{ system: OBSERVATION_CATEGORY_SYSTEM, ...category }] }] } : {}),
    code: readingCode(code, codings?.observation),
    subject: { reference: `Patient/${o.patientId}` },
    ...fhirEffective(o.effective),
    device: { reference: `Device/${o.deviceId}` },
    valueAttachment: { contentType: 'application/json', data: o.data },
    ...(components.length > 0 ? { component: components } : {}),
  };
}

/** The tag of a reading whose payload the service derived from a FHIR sensor reading (docs/payloads.md#derived-payloads). */
export const derivedTag = () => ({ system: modelCodeSystem(), code: 'derived-payload', display: 'Payload derived by the service from a FHIR Observation' });

/** The version of every stored reading: rows are written once (its meta carries no versionId). */
export const READING_VERSION = '1';
