/**
 * A sensor reading sent as FHIR (docs/payloads.md#derived-payloads): an Observation coded by a
 * standard code that names exactly what a payload would hold (HL7's CGM sensor readings: LOINC
 * 99504-3 in mg/dL, 105272-9 in mmol/L), with its value as `valueQuantity` and no payload. It is
 * stored as a native reading whose payload the service builds from it, and from then on it is one
 * of the patient's readings like any a device posted: found by code and value, counted by `$stats`,
 * exported; sent again, it is the same reading.
 *
 * The checks, each failure the entry's answer and nothing stored:
 * 1. a valid R5 Observation (400);
 * 2. one sensor coding (400 for two that disagree); `valueQuantity` with no comparator, in the
 *    UCUM unit the coding names (400: 99504-3 takes mg/dL, 105272-9 mmol/L);
 * 3. `effectiveDateTime` (or `effectiveInstant`): an instant with seconds and an offset (400);
 * 4. through a FHIR Source (the header or `meta.source`; the R4 import always names one): the
 *    reading is the source's patient's, from the source's data source, as every resource sent
 *    through a source is its patient's; without one, `subject` and `device` name them as a device's
 *    upload does;
 * 5. then every check of a mobile-health Observation on the reading with its derived payload
 *    (`native-entry.ts`: the patient, a personal device, the code consented, the payload's schema).
 *
 * The reading's identity (its `header.uuid`, named after it: `nameBasedUuid`) is its first
 * identifier; else, through a source, the source and its `id`; else its code, time and value.
 */
import { assertCanUseFhirSource } from '../../auth/scope';
import type { CheckedSource } from '../../auxiliary/types';
import { namedSourceId } from '../../auxiliary/submission';
import { OMH_SYSTEM, sourceUri } from '../../fhir/constants';
import { issue, type OutcomeIssue } from '../../fhir/outcome';
import { validateResource } from '../../fhir/validation';
import { isObject, type JsonObject } from '../../json';
import { derivedPayload, nameBasedUuid, type DerivedFrom, type SensorKind } from '../../omh/derived';
import { UCUM_SYSTEM } from '../../omh/quantities';
import { encodePayload } from '../../omh/samples';
import { shown } from '../../shown';
import { sensorKindsOf } from '../route';
import { asEntryCheck, assertValid, checkNativeObservation, fail, memo, type EntryCheck, type UploadContext } from './native-entry';

/** The FHIR Source a request names for all its entries (the header), and the one it has checked already (the R4 import). */
export interface Sourcing {
  sourceHeader?: string;
  checkedSource?: CheckedSource;
}

/** Elements a sensor reading keeps (in the reading, or its payload); the others are valid R5 the entry says it did not keep. */
const KEPT = new Set(['resourceType', 'id', 'meta', 'identifier', 'status', 'code', 'subject', 'device', 'effectiveDateTime', 'effectiveInstant', 'valueQuantity', 'issued']);

/** An instant as FHIR writes a dateTime with a time: seconds, optional fraction, and an offset (which RFC 3339 requires too). */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

export async function checkSensorReading(resource: unknown, ctx: UploadContext, sourcing: Sourcing): Promise<EntryCheck> {
  return asEntryCheck(() => check(resource, ctx, sourcing));
}

async function check(resource: unknown, ctx: UploadContext, sourcing: Sourcing): Promise<EntryCheck> {
  if (!isObject(resource)) return fail(400, 'structure', 'The resource must be a JSON object.', 'Observation');
  assertValid(await validateResource(resource, { expectedType: 'Observation' }));
  const kind = kindOf(resource);
  const value = valueOf(resource, kind);
  const at = instantOf(resource);
  const source = await sourceOf(resource, ctx, sourcing);
  const notes: OutcomeIssue[] = [];
  const from: DerivedFrom = { resource_type: 'Observation', code: `${kind.coding.system}|${kind.coding.code}` };
  let subject = resource.subject;
  let device = resource.device;
  if (source) {
    const patient = `Patient/${source.patient.id}`;
    const dataSource = `Device/${source.source.dataSourceId}`;
    const sentSubject = referenceOf(resource.subject);
    if (sentSubject !== undefined && sentSubject !== patient) {
      notes.push(issue('warning', 'informational', `Observation.subject (${shown(sentSubject)}) is not kept: a reading sent through FHIR Source ${source.source.id} is its patient's, ${patient}.`, 'Observation.subject'));
    }
    const sentDevice = referenceOf(resource.device);
    if (sentDevice !== undefined && sentDevice !== dataSource) from.device = sentDevice;
    if (typeof resource.id === 'string') Object.assign(from, { id: resource.id, source: sourceUri(source.source.id) });
    subject = { reference: patient };
    device = { reference: dataSource };
  }
  const created = typeof resource.issued === 'string' && INSTANT.test(resource.issued) ? resource.issued : at;
  const payload = derivedPayload({ kind, value, at, created, uuid: nameBasedUuid(identityOf(resource, kind, value, at, source)), from });
  const reading: JsonObject = {
    resourceType: 'Observation',
    ...(resource.identifier !== undefined ? { identifier: resource.identifier } : {}),
    status: resource.status,
    code: { coding: [{ system: OMH_SYSTEM, code: kind.schemaCode }] },
    ...(subject !== undefined ? { subject } : {}),
    ...(device !== undefined ? { device } : {}),
    valueAttachment: { contentType: 'application/json', data: encodePayload(payload) },
  };
  const checked = await checkNativeObservation(reading, ctx);
  if (!checked.ok) {
    const attributed = source && checked.issues.some((i) => i.expression?.some((e) => e.startsWith('Observation.device') || e.startsWith('Observation.subject')));
    const why = attributed ? [issue('information', 'informational', `A reading sent through FHIR Source ${source.source.id} is its patient's (Patient/${source.patient.id}), from its data source (Device/${source.source.dataSourceId}).`)] : [];
    return { ...checked, issues: [...checked.issues, ...why] };
  }
  const dropped = Object.keys(resource).filter((k) => !KEPT.has(k));
  const warnings = dropped.map((k) =>
    issue('warning', 'informational', `Observation.${k} is not kept: a sensor reading is stored as a mobile-health reading (its identifiers, status, code, value, time and device).`, `Observation.${k}`),
  );
  return { ...checked, warnings: [...notes, ...warnings, ...checked.warnings], derived: true };
}

/** The one sensor kind the codings name (several codings naming the same one are fine). */
function kindOf(resource: JsonObject): SensorKind {
  const kinds = sensorKindsOf(resource);
  const distinct = kinds.filter((k, i) => kinds.findIndex((o) => o.coding.code === k.coding.code && o.coding.system === k.coding.system) === i);
  if (distinct.length !== 1) {
    const named = distinct.map((k) => `${k.coding.system}|${k.coding.code}`).join(' and ');
    return fail(400, 'value', `A sensor reading is one value: Observation.code names ${named}, which disagree on its unit.`, 'Observation.code');
  }
  return distinct[0]!;
}

/** The value, in the one unit the coding names. */
function valueOf(resource: JsonObject, kind: SensorKind): number {
  const coded = `${kind.coding.code} (${kind.coding.display})`;
  const quantity = resource.valueQuantity;
  if (!isObject(quantity)) {
    const other = Object.keys(resource).find((k) => k.startsWith('value'));
    const found = other ? `, not ${other}` : resource.dataAbsentReason !== undefined ? '; a reading without a value (dataAbsentReason) cannot be stored' : '';
    return fail(400, 'required', `A sensor reading coded ${coded} carries its value as valueQuantity in ${kind.unit}${found}.`, 'Observation.valueQuantity');
  }
  if (quantity.comparator !== undefined) {
    return fail(400, 'not-supported', `Observation.valueQuantity.comparator (${shown(quantity.comparator)}) cannot be kept: a reading holds an exact value; send the value the sensor measured, or none.`, 'Observation.valueQuantity.comparator');
  }
  if (typeof quantity.value !== 'number') return fail(400, 'required', 'Observation.valueQuantity.value is required.', 'Observation.valueQuantity.value');
  if (quantity.system !== UCUM_SYSTEM || quantity.code !== kind.unit) {
    const sent = quantity.code === undefined ? 'no UCUM code' : `${shown(quantity.system ?? '(no system)')}|${shown(quantity.code)}`;
    return fail(400, 'value', `${coded} takes values in ${kind.unit} (system ${UCUM_SYSTEM}, code ${kind.unit}); this value has ${sent}.`, 'Observation.valueQuantity.code');
  }
  return quantity.value;
}

/** The effective instant as sent. */
function instantOf(resource: JsonObject): string {
  const at = resource.effectiveDateTime ?? resource.effectiveInstant;
  if (at === undefined) {
    const other = Object.keys(resource).find((k) => k.startsWith('effective'));
    const found = other ? `, not ${other}` : '';
    return fail(400, 'required', `A sensor reading needs the instant it was measured: Observation.effectiveDateTime${found}.`, 'Observation.effectiveDateTime');
  }
  if (typeof at !== 'string' || !INSTANT.test(at)) {
    return fail(400, 'value', `Observation.effectiveDateTime must be an instant, a date and time to the second with an offset (2024-05-02T10:15:00Z), not ${shown(at)}.`, 'Observation.effectiveDateTime');
  }
  return at;
}

/** The FHIR Source the reading is sent through, checked for the caller once per request; none when it names none. */
async function sourceOf(resource: JsonObject, ctx: UploadContext, sourcing: Sourcing): Promise<CheckedSource | undefined> {
  const named = namedSourceId(sourcing.sourceHeader, resource);
  if (named === undefined) return undefined;
  if (sourcing.checkedSource && sourcing.sourceHeader?.trim() === named) return sourcing.checkedSource;
  return memo(ctx.sources, named, () => assertCanUseFhirSource(ctx.caller, named));
}

function referenceOf(value: unknown): string | undefined {
  return isObject(value) && typeof value.reference === 'string' ? value.reference : undefined;
}

/** The name of the reading's identity, whose UUID is its `header.uuid` (the patient completes the key). */
function identityOf(resource: JsonObject, kind: SensorKind, value: number, at: string, source: CheckedSource | undefined): string {
  const identified = Array.isArray(resource.identifier) ? resource.identifier.find((i) => isObject(i) && typeof i.value === 'string' && i.value !== '') : undefined;
  if (isObject(identified)) return `identifier\u0000${typeof identified.system === 'string' ? identified.system : ''}\u0000${identified.value as string}`;
  if (source && typeof resource.id === 'string') return `source\u0000${source.source.id}\u0000Observation/${resource.id}`;
  return `content\u0000${kind.coding.system}|${kind.coding.code}\u0000${Date.parse(at)}\u0000${value}`;
}
