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

/** What a reading's rendering takes from its values and payload, worked out once for either form (object or text). */
export interface ReadingRendering {
  /** The standard coding of `Observation.code` after the code's own (absent: none). */
  observation: StandardCoding | undefined;
  /** `Observation.component`, one entry per lifted value. */
  components: Array<Record<string, unknown>>;
  /** The service derived the payload from a FHIR sensor reading (a tag says so). */
  derived: boolean;
}

export function renderingOf(o: StoredObservation, code: Pick<Code, 'code'>): ReadingRendering {
  const quantities = schemaQuantities(code.code);
  if (!quantities) return { observation: undefined, components: [], derived: false };
  const values = readingValues(o, code.code);
  // The standard codings follow what was measured: the values' units and, for a blood glucose, the specimen its payload names.
  const payload = renderedPayloadFacts(o, quantities);
  const codings = readingCodings(quantities, values, payload.specimen);
  return { observation: codings.observation, components: componentsOf(values, codings), derived: payload.derived };
}

/** `Observation.identifier` as stored (a system only where it has one). */
export const fhirIdentifiers = (o: Pick<StoredObservation, 'identifiers'>) => o.identifiers.map((i) => ({ ...(i.system !== undefined ? { system: i.system } : {}), value: i.value }));

/** `Observation.category`, when the code has one. */
export function fhirCategory(schemaCode: string): Array<{ coding: Array<Record<string, string>> }> | undefined {
  const category = categoryOf(schemaCode);
  return category && [{ coding: [{ system: OBSERVATION_CATEGORY_SYSTEM, ...category }] }];
}

export function toFhirObservation(o: StoredObservation, code: Code): FhirObservation {
  const rendering = renderingOf(o, code);
  const category = fhirCategory(code.code);
  return {
    resourceType: 'Observation',
    id: String(o.id),
    meta: { lastUpdated: o.lastUpdated, source: nativeSourceUri(), ...(rendering.derived ? { tag: [derivedTag()] } : {}) },
    ...(o.identifiers.length > 0 ? { identifier: fhirIdentifiers(o) } : {}),
    status: o.status,
    ...(category ? { category } : {}),
    code: readingCode(code, rendering.observation),
    subject: { reference: `Patient/${o.patientId}` },
    ...fhirEffective(o.effective),
    device: { reference: `Device/${o.deviceId}` },
    valueAttachment: { contentType: 'application/json', data: o.data },
    ...(rendering.components.length > 0 ? { component: rendering.components } : {}),
  };
}

/** The tag of a reading whose payload the service derived from a FHIR sensor reading (docs/payloads.md#derived-payloads). */
export const derivedTag = () => ({ system: modelCodeSystem(), code: 'derived-payload', display: 'Payload derived by the service from a FHIR Observation' });

/** The version of every stored reading: rows are written once (its meta carries no versionId). */
export const READING_VERSION = '1';
