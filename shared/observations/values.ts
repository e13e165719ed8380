/**
 * The numbers inside a reading (docs/payloads.md#the-values-inside-a-payload): lifted from the
 * payload on upload, kept with the row in a compact form, shown as `component` entries with their
 * standard codes and UCUM units, and searched. The payload stays the source of truth: every value
 * here is a copy of one of its `{value, unit}` members.
 */
import { isDerivedHeader } from '../omh/derived';
import { isObject } from '../json';
import { decodePayload } from '../omh/payload';
import {
  liftQuantities, memberCodingOf, observationCodingOf, omhMemberSystem, schemaQuantities, specimenOf, UCUM_SYSTEM, ucumOf,
  type LiftedQuantity, type SchemaQuantities, type StandardCoding,
} from '../omh/quantities';
import type { KeptValue, StoredObservation } from './model';

/** The unit a member's values are in unless a reading says otherwise: its first allowed unit. */
/** A member's default unit: the first its schema allows (a kept value names its unit only when it is another). */
export const defaultUnit = (quantities: SchemaQuantities, member: number): string | undefined => quantities.members[member]?.units?.[0];

/** The unit a kept value was uploaded in: its own, else its member's first allowed unit ('' when neither). */
export const keptUnit = (quantities: SchemaQuantities | undefined, member: number, unit: string | undefined): string => unit ?? (quantities && defaultUnit(quantities, member)) ?? '';

/** What a new reading keeps of its payload's values (the unit only where it is not the member's default). */
export function keptValues(schemaCode: string, body: unknown): KeptValue[] {
  const quantities = schemaQuantities(schemaCode);
  if (!quantities) return [];
  return liftQuantities(schemaCode, body).map(({ member, value, unit }) => (unit === defaultUnit(quantities, member) ? { member, value } : { member, value, unit }));
}

/**
 * The body of a stored payload. It passed `decodePayload` when it was uploaded (canonical Base64 of
 * a JSON object with a header and a body), so it is decoded here without that check, which encodes
 * every payload a second time to prove its Base64 canonical: reads decode many payloads (a study's
 * table, the edge days of each participant's period).
 */
export function storedBody(data: string): unknown {
  try {
    const document: unknown = JSON.parse(Buffer.from(data, 'base64').toString('utf8'));
    return isObject(document) && isObject(document.body) ? document.body : undefined;
  } catch {
    return undefined;
  }
}

/** What a stored reading keeps of its payload's values (the move to layout 3 lifts those an earlier layout stored without them). */
export function keptValuesOfStored(reading: Pick<StoredObservation, 'data'>, schemaCode: string): KeptValue[] {
  return keptValues(schemaCode, storedBody(reading.data));
}

/**
 * A reading's values with their units. A reading stored before values were lifted (and not yet
 * migrated) has them lifted from its payload when `data` is given (what it shows does not wait for
 * the migration), and none otherwise (what a search tests: a count reads no payloads, so a page
 * must not either, or the two would disagree until the migration has run).
 */
export function readingValues(reading: Pick<StoredObservation, 'values'> & { data?: string }, schemaCode: string): LiftedQuantity[] {
  const quantities = schemaQuantities(schemaCode);
  if (!quantities) return [];
  if (reading.values === undefined) return reading.data === undefined ? [] : liftQuantities(schemaCode, storedBody(reading.data));
  return reading.values.map(({ member, value, unit }) => ({ member, value, unit: keptUnit(quantities, member, unit) }));
}

export interface FhirQuantity {
  value: number;
  unit: string;
  system?: string;
  code?: string;
}

/** A lifted value as a FHIR Quantity: the number and the human unit as uploaded, with its UCUM code where it has one. */
export function fhirQuantity({ value, unit }: Pick<LiftedQuantity, 'value' | 'unit'>): FhirQuantity {
  const ucum = ucumOf(unit);
  return ucum === undefined ? { value, unit } : { value, unit, system: UCUM_SYSTEM, code: ucum };
}

/**
 * What rendering a stored reading reads from its payload, decoded once: the specimen its codings
 * follow (as `readingSpecimen`), and whether the service derived the payload from a FHIR sensor
 * reading (docs/payloads.md#derived-payloads), which only a schema with a specimen can be: every
 * other reading costs one property test.
 */
export function renderedPayloadFacts(reading: { data: string }, quantities: SchemaQuantities): { specimen: string | undefined; derived: boolean } {
  const none = { specimen: undefined, derived: false };
  if (quantities.specimen === undefined) return none;
  const decoded = decodePayload({ contentType: 'application/json', data: reading.data });
  if (!decoded.ok) return none;
  return { specimen: specimenOf(quantities, decoded.payload.body), derived: isDerivedHeader(decoded.payload.header) };
}

/**
 * The specimen a stored reading names in its payload (`specimen_source` of a blood glucose), read
 * only for a schema whose codings follow one: every other reading costs one property test. A
 * reading without its payload (`data`: a count's facts) names none.
 */
export function readingSpecimen(reading: { data?: string }, quantities: SchemaQuantities): string | undefined {
  if (quantities.specimen === undefined || reading.data === undefined) return undefined;
  return specimenOf(quantities, storedBody(reading.data));
}

/**
 * The code of a value's component: the member's standard coding for its unit and the reading's
 * specimen (`memberCodingOf`), except where that is the reading's own (a heart rate's `heart_rate`
 * is 8867-4, like the reading): R5 forbids a component coded as the Observation while `value[x]`
 * is present (obs-7), and `value[x]` holds the payload, so that one component is coded by its
 * member in the service's own system, with the display of the coding it would have had.
 */
export function componentCoding(quantities: SchemaQuantities, value: Pick<LiftedQuantity, 'member' | 'unit'>, specimen: string | undefined, observation: StandardCoding | undefined): StandardCoding {
  const coding = memberCodingOf(quantities, value.member, value.unit, specimen);
  const sameAsReading = observation !== undefined && observation.system === coding.system && observation.code === coding.code;
  return sameAsReading ? { system: omhMemberSystem(), code: quantities.members[value.member]!.path, display: coding.display } : { ...coding };
}

/** A reading's standard codings: the observation's (after its `omh:` coding) and each value's component's, in the order of `values`. */
export interface ReadingCodings {
  observation: StandardCoding | undefined;
  components: StandardCoding[];
}

export function readingCodings(quantities: SchemaQuantities, values: readonly LiftedQuantity[], specimen: string | undefined): ReadingCodings {
  const observation = observationCodingOf(quantities, values, specimen);
  return { observation, components: values.map((v) => componentCoding(quantities, v, specimen, observation)) };
}

/** `Observation.component`: one entry per lifted value, coded as `readingCodings` says. */
export function componentsOf(values: readonly LiftedQuantity[], codings: ReadingCodings): Array<Record<string, unknown>> {
  return values.map((v, i) => ({ code: { coding: [codings.components[i]!] }, valueQuantity: fhirQuantity(v) }));
}
