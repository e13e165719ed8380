/**
 * The R5 observation category of each schema that has one (`Observation.category`, and what
 * `$lastn`'s `category` selects): the vital signs of R5's vital-signs profiles, and physical
 * activity. The other schemas (sleep, spirometry, food) fit none of R5's categories well and get none.
 */
export const OBSERVATION_CATEGORY_SYSTEM = 'http://terminology.hl7.org/CodeSystem/observation-category';

export interface ObservationCategory {
  code: 'vital-signs' | 'activity';
  display: string;
}

const VITAL_SIGNS: ObservationCategory = { code: 'vital-signs', display: 'Vital Signs' };
const ACTIVITY: ObservationCategory = { code: 'activity', display: 'Activity' };

const BY_SCHEMA: ReadonlyMap<string, ObservationCategory> = new Map([
  ['omh:blood-pressure:4.0', VITAL_SIGNS],
  ['omh:body-temperature:4.0', VITAL_SIGNS],
  ['omh:body-weight:3.0', VITAL_SIGNS],
  ['omh:heart-rate:2.0', VITAL_SIGNS],
  ['omh:oxygen-saturation:2.0', VITAL_SIGNS],
  ['omh:respiratory-rate:2.0', VITAL_SIGNS],
  ['omh:physical-activity:1.2', ACTIVITY],
  ['ieee:physical-activity:1.0', ACTIVITY],
  ['omh:step-count:3.0', ACTIVITY],
]);

/** The category of a schema code, if it has one. */
export const categoryOf = (schemaCode: string): ObservationCategory | undefined => BY_SCHEMA.get(schemaCode);
