/**
 * The CGM summary's R5 resources as FHIR R4, for a hospital whose server speaks R4
 * (docs/portal.md#sending-to-the-hospital). The summary Observations and the DiagnosticReport of
 * `$cgm-report` use only elements R4 has in the same shape (status, category, code, subject,
 * effectivePeriod, valueQuantity, dataAbsentReason, interpretation, referenceRange.text, component,
 * hasMember, note; issued, result, presentedForm), so the conversion keeps each element R4 defines
 * and leaves out, naming it, any element R4 lacks or shapes otherwise (a SampledData, which R5
 * reshaped; R5's new elements); an Attachment's `size` becomes R4's number.
 *
 * In R4 each resource names the guide's profile its shape follows (`meta.profile`): the guide's
 * profiles are R4 StructureDefinitions, so the R5 originals name none.
 *
 * The unit tests hold the result to the R4 definitions the R4 import compiled: nothing of it is
 * outside R4, and converting it back gives the R5 original.
 */
import {
  CGM_PROFILES, COEFFICIENT_OF_VARIATION, DAYS_OF_WEAR, GMI, MEAN_GLUCOSE, profileUrl, SENSOR_ACTIVE, SUMMARY_PANEL, TIMES_IN_RANGES,
} from '../cgm/codes';
import { isObject, type JsonObject } from '../json';
import { loincOf } from './cgm-view';
import type { Resource } from './records';

const COMMON = ['id', 'meta', 'implicitRules', 'language', 'text', 'contained', 'extension', 'modifierExtension'];
const BACKBONE = ['id', 'extension', 'modifierExtension'];
/** R4's `value[x]` of an Observation and its components, but SampledData (R5 reshaped it: offsets, intervalUnit). */
const R4_VALUES = ['valueQuantity', 'valueCodeableConcept', 'valueString', 'valueBoolean', 'valueInteger', 'valueRange', 'valueRatio', 'valueTime', 'valueDateTime', 'valuePeriod'];

/** The elements R4 defines, by path, for what the summary holds. */
const R4_ELEMENTS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries({
    Observation: [
      ...COMMON, 'identifier', 'basedOn', 'partOf', 'status', 'category', 'code', 'subject', 'focus', 'encounter', 'effectiveDateTime', 'effectivePeriod',
      'effectiveTiming', 'effectiveInstant', 'issued', 'performer', ...R4_VALUES, 'dataAbsentReason', 'interpretation', 'note', 'bodySite', 'method', 'specimen',
      'device', 'referenceRange', 'hasMember', 'derivedFrom', 'component',
    ],
    'Observation.component': [...BACKBONE, 'code', ...R4_VALUES, 'dataAbsentReason', 'interpretation', 'referenceRange'],
    'Observation.referenceRange': [...BACKBONE, 'low', 'high', 'type', 'appliesTo', 'age', 'text'],
    DiagnosticReport: [
      ...COMMON, 'identifier', 'basedOn', 'status', 'category', 'code', 'subject', 'encounter', 'effectiveDateTime', 'effectivePeriod', 'issued', 'performer',
      'resultsInterpreter', 'specimen', 'result', 'imagingStudy', 'media', 'conclusion', 'conclusionCode', 'presentedForm',
    ],
    Attachment: ['id', 'extension', 'contentType', 'language', 'data', 'url', 'size', 'hash', 'title', 'creation'],
  }).map(([path, keys]) => [path, new Set(keys)]),
);

/** The guide's profile of each summary resource, by type and LOINC code. */
const PROFILES: ReadonlyMap<string, string> = new Map([
  [`Observation|${SUMMARY_PANEL.code}`, CGM_PROFILES.summary],
  [`Observation|${MEAN_GLUCOSE['mg/dL'].code}`, CGM_PROFILES.meanMgdl],
  [`Observation|${MEAN_GLUCOSE['mmol/L'].code}`, CGM_PROFILES.meanMmolL],
  [`Observation|${TIMES_IN_RANGES.code}`, CGM_PROFILES.timesInRanges],
  [`Observation|${GMI.code}`, CGM_PROFILES.gmi],
  [`Observation|${COEFFICIENT_OF_VARIATION.code}`, CGM_PROFILES.cv],
  [`Observation|${DAYS_OF_WEAR.code}`, CGM_PROFILES.daysOfWear],
  [`Observation|${SENSOR_ACTIVE.code}`, CGM_PROFILES.sensorActive],
  [`DiagnosticReport|${SUMMARY_PANEL.code}`, CGM_PROFILES.pdf],
]);

/** The guide's profile URL a resource's shape follows, if it is one of the summary's. */
export function cgmProfileOf(resource: Resource): string | undefined {
  const id = PROFILES.get(`${resource.resourceType}|${loincOf(resource) ?? ''}`);
  return id === undefined ? undefined : profileUrl(id);
}

export interface R4Resource {
  resource: Resource;
  /** The paths left out (`Observation.component.valueSampledData`): R4 has no such element, or not in that shape. */
  dropped: string[];
}

/** The elements of `value` R4 defines at `path`, each nested backbone and Attachment likewise. */
function keep(value: JsonObject, path: string, dropped: string[]): JsonObject {
  const allowed = R4_ELEMENTS.get(path)!;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === 'resourceType') out[key] = item;
    else if (!allowed.has(key)) dropped.push(`${path}.${key}`);
    else out[key] = nested(path, key, item, dropped);
  }
  return out;
}

function nested(path: string, key: string, item: unknown, dropped: string[]): unknown {
  const inner = `${path}.${key}`;
  if (R4_ELEMENTS.has(inner)) return Array.isArray(item) ? item.map((v) => (isObject(v) ? keep(v, inner, dropped) : v)) : item;
  if (inner === 'DiagnosticReport.presentedForm' && Array.isArray(item)) return item.map((v) => (isObject(v) ? attachment(v, dropped) : v));
  return item;
}

function attachment(value: JsonObject, dropped: string[]): JsonObject {
  const out = keep(value, 'Attachment', dropped);
  // R5's size is an integer64 (a JSON string); R4's an unsignedInt.
  if (typeof out.size === 'string') out.size = Number(out.size);
  return out;
}

/** An Observation or DiagnosticReport of the summary as R4, naming the guide's profile it follows. */
export function r4Of(resource: Resource): R4Resource {
  if (!R4_ELEMENTS.has(resource.resourceType)) throw new RangeError(`${resource.resourceType} is not one of the summary's types`);
  const dropped: string[] = [];
  const out = keep(resource, resource.resourceType, dropped) as Resource;
  const profile = cgmProfileOf(resource);
  if (profile) {
    const meta = isObject(out.meta) ? out.meta : {};
    const profiles = Array.isArray(meta.profile) ? meta.profile : [];
    out.meta = { ...meta, profile: [...profiles.filter((p) => p !== profile), profile] };
  }
  return { resource: out, dropped };
}
