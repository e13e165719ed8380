/**
 * Unit lists and value sets shared by the payload schemas (IEEE 1752 / Open mHealth), as listed
 * in the reference notes. The OMH and IEEE versions of each list are the same.
 */
import { enumOf } from './validate';

export const DURATION_UNITS = ['ps', 'ns', 'us', 'ms', 'sec', 'min', 'h', 'd', 'wk', 'Mo', 'yr'] as const;
export type DurationUnit = (typeof DURATION_UNITS)[number];

export const MASS_UNITS = ['fg', 'pg', 'ng', 'ug', 'mg', 'g', 'kg', 'Metric Ton', 'gr', 'oz', 'lb', 'Ton'];
export const LENGTH_UNITS = ['fm', 'pm', 'nm', 'um', 'mm', 'cm', 'm', 'km', 'in', 'ft', 'yd', 'mi'];
export const VOLUME_UNITS = [
  'fL', 'pL', 'nL', 'uL', 'mL', 'cL', 'dL', 'L', 'kL', 'fl oz', 'Cup', 'in^3', 'pt', 'qt', 'gal', 'tsp', 'tbsp',
];
export const TEMPERATURE_UNITS = ['K', 'F', 'C'];
export const SPEED_UNITS = ['m/s', 'km/h'];

export const PARTS_OF_DAY = ['morning', 'afternoon', 'evening', 'night'] as const;
export type PartOfDay = (typeof PARTS_OF_DAY)[number];

/** descriptive-statistic 1.2 (OMH) / 1.0 (IEEE): 17 values. */
export const DESCRIPTIVE_STATISTIC = enumOf([
  'average', 'count', 'maximum', 'median', 'minimum', 'standard deviation', 'sum', 'variance',
  '20th percentile', '80th percentile', 'lower quartile', 'upper quartile', 'quartile deviation',
  '1st quintile', '2nd quintile', '3rd quintile', '4th quintile',
]);

/** descriptive-statistic 1.0 (OMH), used only by step-count 3.0: no `count`. */
export const DESCRIPTIVE_STATISTIC_1_0 = enumOf([
  'average', 'maximum', 'minimum', 'standard deviation', 'variance', 'sum', 'median',
]);

export const TEMPORAL_RELATIONSHIP_TO_PHYSICAL_ACTIVITY = enumOf([
  'at rest', 'active', 'before exercise', 'after exercise', 'during exercise',
]);

export const TEMPORAL_RELATIONSHIP_TO_SLEEP = enumOf(['before sleeping', 'during sleep', 'on waking']);

export const TEMPORAL_RELATIONSHIP_TO_MEAL = enumOf([
  'fasting', 'not fasting', 'before meal', 'after meal', 'before breakfast', 'after breakfast',
  'before lunch', 'after lunch', 'before dinner', 'after dinner', '2 hours postprandial', 'with meal', 'with food',
]);

export const BODY_POSTURE = enumOf(['sitting', 'lying down', 'standing', 'semi-recumbent']);

export const BODY_LOCATION = enumOf([
  'left ankle', 'right ankle', 'left hip', 'right hip', 'left thigh', 'right thigh', 'left thorax',
  'middle left thorax', 'left upper arm', 'right upper arm', 'left wrist', 'right wrist',
]);

/** specimen-source 2.1 (`tears`; the 2.0 value `lacrimal fluid` is not accepted). */
export const SPECIMEN_SOURCE = enumOf([
  'breath', 'capillary blood', 'interstitial fluid', 'saliva', 'sweat', 'tears', 'urine',
]);

export const ACTIVITY_INTENSITY = enumOf(['light', 'moderate', 'vigorous']);
