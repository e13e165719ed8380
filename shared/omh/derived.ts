/**
 * Payloads the service writes itself (docs/payloads.md#derived-payloads): a FHIR Observation that
 * carries one reading's value as a Quantity, coded by a standard code that names exactly what the
 * payload would say (HL7's CGM sensor readings: LOINC 99504-3, glucose in interstitial fluid in
 * mg/dL, and 105272-9 in mmol/L), becomes a native reading whose payload is built from it. The
 * payload is marked as built (`header.derived_from`), and its `header.uuid` is named after the
 * reading's identity, so the same reading sent again is the same reading.
 */
import { createHash } from 'node:crypto';
import { isObject, type JsonObject } from '../json';
import type { OmhPayload } from './check';
import { canonicalOf, SCHEMA_QUANTITIES, ucumOf, type StandardCoding } from './quantities';
import { schemaForCode } from './schemas/index';

/**
 * The specimen of the codings a FHIR reading may carry instead of a payload. A CGM sensor samples
 * interstitial fluid, and LOINC's interstitial-fluid glucose codes are the ones HL7's CGM IG gives
 * sensor readings; a glucose coded for blood (a lab's, a glucometer's) is a clinical result and
 * stays as sent, in the auxiliary store.
 */
export const SENSOR_SPECIMEN = 'interstitial fluid';

/** What a standard coding of a FHIR sensor reading says the payload holds. */
export interface SensorKind {
  /** The schema the payload is written in (`omh:blood-glucose:4.0`). */
  schemaCode: string;
  /** The principal member's path (`blood_glucose`) and the one unit the coding's dimension takes, an OMH label that is also its UCUM code. */
  member: string;
  unit: string;
  /** The body member naming the specimen, and its value. */
  specimenMember: string;
  specimen: string;
  coding: StandardCoding;
}

/**
 * Every coding of a sensor reading, by `system|code`, from the quantities table: each variant of a
 * schema's principal member for {@link SENSOR_SPECIMEN}, with the member's unit of that variant's
 * dimension whose label is its own UCUM code (so a Quantity's UCUM code names it exactly).
 */
export const SENSOR_KINDS: ReadonlyMap<string, SensorKind> = new Map(
  SCHEMA_QUANTITIES.flatMap((schema) => {
    const principal = schema.principal === undefined ? undefined : schema.members[schema.principal];
    if (!principal || schema.specimen === undefined) return [];
    return principal.variants.flatMap((variant) => {
      if (variant.specimen !== SENSOR_SPECIMEN) return [];
      const unit = (principal.units ?? []).find((u) => ucumOf(u) === u && canonicalOf(u)?.canonical === variant.canonical);
      if (unit === undefined) return [];
      const kind: SensorKind = { schemaCode: schema.code, member: principal.path, unit, specimenMember: schema.specimen!, specimen: SENSOR_SPECIMEN, coding: variant.coding };
      return [[`${variant.coding.system}|${variant.coding.code}`, kind] as const];
    });
  }),
);

/** The sensor kind a coding names, if it names one. */
export function sensorKindOf(coding: unknown): SensorKind | undefined {
  if (!isObject(coding) || typeof coding.system !== 'string' || typeof coding.code !== 'string') return undefined;
  return SENSOR_KINDS.get(`${coding.system}|${coding.code}`);
}

/** The header member that marks a derived payload, and says what it was derived from. */
export const DERIVED_MEMBER = 'derived_from';

/** What a derived payload records of the resource it was built from (`header.derived_from`). */
export interface DerivedFrom {
  resource_type: 'Observation';
  /** The coding it was read by, `system|code`. */
  code: string;
  /** Its id, when it was sent through a FHIR Source (whose URI is `source`). */
  id?: string;
  source?: string;
  /** Its `device` reference as sent (after the Bundle's references to its own entries were resolved), when that is not the reading's data source. */
  device?: string;
}

export interface DerivedReading {
  kind: SensorKind;
  value: number;
  /** The effective instant as sent (RFC 3339 with an offset). */
  at: string;
  /** When the value was made at its source: the resource's `issued`, else `at`. */
  created: string;
  uuid: string;
  from: DerivedFrom;
}

/** The payload of a derived reading: the schema's body with the value, the time and the specimen; the header marked as derived. */
export function derivedPayload(reading: DerivedReading): OmhPayload {
  const schema = schemaForCode(reading.kind.schemaCode)!;
  const body: JsonObject = {
    [reading.kind.member]: { value: reading.value, unit: reading.kind.unit },
    effective_time_frame: { date_time: reading.at },
    [reading.kind.specimenMember]: reading.kind.specimen,
  };
  return {
    header: {
      uuid: reading.uuid,
      schema_id: { namespace: schema.namespace, name: schema.name, version: schema.version },
      source_creation_date_time: reading.created,
      modality: 'sensed',
      [DERIVED_MEMBER]: { ...reading.from },
    },
    body,
  };
}

/** Whether a payload header says the service derived it. */
export const isDerivedHeader = (header: unknown): boolean => isObject(header) && isObject(header[DERIVED_MEMBER]);

/** The namespace of derived readings' uuids (a fixed random UUID: the names below are the service's own). */
const DERIVED_NAMESPACE = Buffer.from('6f1c2a3e9b5d4e7f8a0b1c2d3e4f5a6b', 'hex');

/**
 * A name-based UUID (RFC 9562 version 5: SHA-1 of a namespace and a name): the same name gives the
 * same `header.uuid`, so a reading sent again is found as the reading stored before.
 */
export function nameBasedUuid(name: string): string {
  const hash = createHash('sha1').update(DERIVED_NAMESPACE).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
