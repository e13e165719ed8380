/**
 * Every payload schema the service validates, by observation code `namespace:name:version`
 * (`omh:heart-rate:2.0`, `ieee:sleep-episode:1.0`). The display labels are the code table's.
 */
import { ieeePhysicalActivity1, omhPhysicalActivity12, stepCount3 } from './activity';
import { foodEntry01 } from './food';
import {
  ieeeSleepEpisode1, omhSleepEpisode11, sleepDuration2, sleepStageSummary1, timeInBed1, totalSleepTime1,
} from './sleep';
import type { Validator } from './validate';
import {
  bloodGlucose4, bloodPressure4, bodyTemperature4, bodyWeight3, forcedExpiratoryVolume1Second1,
  forcedVitalCapacity1, heartRate2, oxygenSaturation2, respiratoryRate2, rrInterval1,
} from './vitals';

export type SchemaNamespace = 'omh' | 'ieee';

export interface SchemaId {
  namespace: SchemaNamespace;
  name: string;
  version: string;
}

export interface PayloadSchema extends SchemaId {
  /** `namespace:name:version`, the observation code that selects this schema. */
  code: string;
  /** Human label of the code. */
  display: string;
  body: Validator;
}

const SCHEMAS: ReadonlyArray<[code: string, display: string, body: Validator]> = [
  ['omh:blood-glucose:4.0', 'Blood glucose', bloodGlucose4],
  ['omh:blood-pressure:4.0', 'Blood pressure', bloodPressure4],
  ['omh:body-temperature:4.0', 'Body temperature', bodyTemperature4],
  ['omh:heart-rate:2.0', 'Heart Rate', heartRate2],
  ['omh:oxygen-saturation:2.0', 'Oxygen saturation', oxygenSaturation2],
  ['omh:respiratory-rate:2.0', 'Respiratory rate', respiratoryRate2],
  ['omh:rr-interval:1.0', 'RR Interval', rrInterval1],
  ['omh:body-weight:3.0', 'Body weight', bodyWeight3],
  ['omh:forced-vital-capacity:1.0', 'Forced vital capacity', forcedVitalCapacity1],
  ['omh:forced-expiratory-volume-1-second:1.0', 'Forced expiratory volume 1 second', forcedExpiratoryVolume1Second1],
  ['omh:physical-activity:1.2', 'Physical activity', omhPhysicalActivity12],
  ['omh:step-count:3.0', 'Step count', stepCount3],
  ['ieee:sleep-stage-summary:1.0', 'Sleep stage summary', sleepStageSummary1],
  ['omh:sleep-episode:1.1', 'Sleep episode', omhSleepEpisode11],
  ['omh:sleep-duration:2.0', 'Sleep duration', sleepDuration2],
  ['ieee:physical-activity:1.0', 'Physical activity', ieeePhysicalActivity1],
  ['ieee:sleep-episode:1.0', 'Sleep episode (IEEE)', ieeeSleepEpisode1],
  ['ieee:time-in-bed:1.0', 'Time in bed', timeInBed1],
  ['omh:total-sleep-time:1.0', 'Total sleep time', totalSleepTime1],
  ['ieee:food-entry:0.1', 'Food entry', foodEntry01],
];

const CODE = /^(omh|ieee):([a-z0-9]+(?:-[a-z0-9]+)*):([0-9]+(?:\.[0-9]+)*)$/;

/** Splits `omh:heart-rate:2.0` into its schema id; undefined when it is not of that form. */
export function parseSchemaCode(code: string): SchemaId | undefined {
  const m = CODE.exec(code);
  return m ? { namespace: m[1] as SchemaNamespace, name: m[2]!, version: m[3]! } : undefined;
}

/** Every supported schema, in code-table order. */
export const PAYLOAD_SCHEMAS: readonly PayloadSchema[] = SCHEMAS.map(([code, display, body]) => ({
  ...parseSchemaCode(code)!,
  code,
  display,
  body,
}));

const BY_CODE = new Map(PAYLOAD_SCHEMAS.map((schema) => [schema.code, schema]));

/** The schema an observation code names, or undefined for a code the service has no schema for. */
export function schemaForCode(code: string): PayloadSchema | undefined {
  return BY_CODE.get(code);
}
