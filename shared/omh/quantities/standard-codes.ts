/**
 * The standard code of every unit-value member of every supported body schema, and of each
 * observation as a whole: our own table, written from the published mappings below, read only by
 * the generator (scripts/omh-quantities.ts), which joins it with the schemas and the UCUM units into
 * shared/omh/generated/quantities.json. The completeness test fails when a schema has a unit-value
 * this table does not list, or the table lists one no schema has.
 *
 * Where the codes come from (LOINC first, SNOMED CT where LOINC has none):
 * - [mFHIR] Open mHealth's own FHIR mapping (github.com/openmhealth/mFHIR, README and the per-schema
 *   data-point mappings): the observation code of blood glucose, blood pressure, body temperature,
 *   body weight, heart rate, oxygen saturation, respiratory rate and step count.
 * - [VS] FHIR R5 vital-signs profiles (hl7.fhir.r5.core, installed): 85354-9 and its systolic and
 *   diastolic 8480-6 / 8462-4, 8310-5, 29463-7, 8867-4, 9279-1, 59408-5, with their displays.
 * - [PHR] HL7 Personal Health Record IG (hl7.org/fhir/uv/phr), its PGHD code mapping (HealthKit,
 *   Health Connect, LOINC): 2339-0, 19870-5 (FVC), 20150-9 (FEV1), 55423-8; its sleep value set
 *   pcd-sleep-observation-code: 93832-4 sleep, 93829-0 REM, 93830-8 light, 93831-6 deep sleep
 *   duration and SNOMED CT 258158006 "Sleep, function".
 * - [PA] HL7 US Physical Activity IG 1.0.0 (hl7.org/fhir/us/physical-activity), value set
 *   pa-observation-code-activity: 73985-4 exercise activity, 55411-3 exercise duration, 55424-6
 *   calories burned.
 * - [USCore] US Core pulse-oximetry profile: 3151-8 inhaled oxygen flow rate (its component).
 * - [CGM] HL7 Continuous Glucose Monitoring IG (hl7.org/fhir/uv/cgm): a sensor reading is 99504-3
 *   (mass/volume) or 105272-9 (moles/volume), glucose in interstitial fluid.
 * - [LOINC] the glucose terms by property and specimen: 2339-0 / 15074-8 in blood, 41653-7 /
 *   14743-9 in capillary blood by glucometer (mass / substance concentration).
 *
 * Every LOINC code here has its property in loinc-properties.ts; a test holds each coding against
 * the UCUM dimension of every unit its member allows.
 *
 * Choices:
 * - Blood glucose follows what was measured: the unit's dimension picks mass or substance
 *   concentration, and `specimen_source` the specimen ([LOINC], [CGM]): capillary blood the
 *   glucometer codes, interstitial fluid the CGM codes, and no specimen or any other (breath,
 *   saliva, sweat, tears, urine) the blood codes 2339-0 / 15074-8 ([mFHIR] and [PHR] have 2339-0):
 *   the schema's value is a blood glucose, and a device that samples another fluid reports its
 *   estimate of the blood's, not that fluid's own glucose (LOINC's urine or sweat glucose terms
 *   would name a concentration the value is not). Its default coding, where neither is known, is
 *   2339-0.
 * - Oxygen saturation is 59408-5 (by pulse oximetry), as [mFHIR] has it and as the schema's only
 *   `system` / `measurement_method` values (peripheral capillary, pulse oximetry) say; the plain
 *   vital-signs code 2708-6 is not added here.
 * - Sleep duration and total sleep time are LOINC 93832-4 ([PHR]) rather than [mFHIR]'s SNOMED CT
 *   248263006: LOINC first.
 * - No standard code (coded `<namespace>/omh-member` with the member path as code, never
 *   dropped): RR interval, time in bed, sleep latencies, wake after sleep onset, awake duration,
 *   every sleep percentage and efficiency, distance, elevation gain, speed, cadence, base movement
 *   quantity, light-, moderate- and vigorous-activity durations, and the food entry's amount and
 *   nutrients. The LOINC codes the mappings offer near them do not mean the same thing: [PA]'s
 *   77592-4 / 77593-2 (moderate / vigorous physical activity [IPAQ]) are 7-day rates in
 *   MET-minutes (property ARat), not a duration; the nutrient intake codes of [PHR]
 *   (9052-2, 9079-5, ...) are 24-hour totals, not one food's content; the distance codes are per
 *   sport (93818-3 cycling, 93816-7 swimming); LOINC's R-R interval codes are ECG measurements, and
 *   80404-7 ([PHR] heart-rate variability) is their standard deviation, not one interval.
 *
 * Member order is the order stored readings index into: never reorder or remove, only append.
 */
import type { StandardCoding } from '../quantities';

const LOINC = 'http://loinc.org';
const SNOMED = 'http://snomed.info/sct';

const loinc = (code: string, display: string): StandardCoding => ({ system: LOINC, code, display });

/** A member coded in the service's own system (`<namespace>/omh-member`, its path as code). */
export const OWN_CODE = 'own';

/**
 * Codings of one member for one specimen (undefined: no specimen, or one no other set names), told
 * apart by the dimension of their LOINC property: a value is coded by the one whose dimension is
 * its unit's (`mg/dL` a mass concentration, `mmol/L` a substance concentration).
 */
export interface CodingVariants {
  specimen: string | undefined;
  codings: readonly StandardCoding[];
}

export interface CodedMember {
  path: string;
  /** The member's coding; with `variants`, where the value's unit and the specimen are not known. */
  coding: StandardCoding | typeof OWN_CODE;
  /** An own code's display, when the path read as words is not one (`RR interval`). */
  display?: string;
  /** Codings that follow the value's unit and the reading's specimen (the schema's `specimen` member). */
  variants?: readonly CodingVariants[];
}

export interface SchemaCodes {
  code: string;
  /** The observation's standard code, or undefined when there is none (the `omh:` code alone names it). */
  coding: StandardCoding | undefined;
  /** Path of the member that is the reading's value (its coding is the observation's, when there is one). */
  principal: string | undefined;
  members: readonly CodedMember[];
  /** The body member naming the specimen the value was measured in, which members' variants follow. */
  specimen?: string;
}

const HEART_RATE = loinc('8867-4', 'Heart rate');
const GLUCOSE_MASS = loinc('2339-0', 'Glucose [Mass/volume] in Blood');
const GLUCOSE_MOLES = loinc('15074-8', 'Glucose [Moles/volume] in Blood');
const CAPILLARY_GLUCOSE_MASS = loinc('41653-7', 'Glucose [Mass/volume] in Capillary blood by Glucometer');
const CAPILLARY_GLUCOSE_MOLES = loinc('14743-9', 'Glucose [Moles/volume] in Capillary blood by Glucometer');
const INTERSTITIAL_GLUCOSE_MASS = loinc('99504-3', 'Glucose [Mass/volume] in Interstitial fluid');
const INTERSTITIAL_GLUCOSE_MOLES = loinc('105272-9', 'Glucose [Moles/volume] in Interstitial fluid');
const BODY_TEMPERATURE = loinc('8310-5', 'Body temperature');
const SPO2 = loinc('59408-5', 'Oxygen saturation in Arterial blood by Pulse oximetry');
const RESPIRATORY_RATE = loinc('9279-1', 'Respiratory rate');
const BODY_WEIGHT = loinc('29463-7', 'Body weight');
const FVC = loinc('19870-5', 'Forced vital capacity [Volume] Respiratory system by Spirometry');
const FEV1 = loinc('20150-9', 'FEV1');
const STEPS = loinc('55423-8', 'Number of steps in unspecified time Pedometer');
const SLEEP_DURATION = loinc('93832-4', 'Sleep duration');
const REM_SLEEP = loinc('93829-0', 'REM sleep duration');
const LIGHT_SLEEP = loinc('93830-8', 'Light sleep duration');
const DEEP_SLEEP = loinc('93831-6', 'Deep sleep duration');
const SLEEP: StandardCoding = { system: SNOMED, code: '258158006', display: 'Sleep, function (observable entity)' };
const EXERCISE_ACTIVITY = loinc('73985-4', 'Exercise activity');
const EXERCISE_DURATION = loinc('55411-3', 'Exercise duration');
const CALORIES_BURNED = loinc('55424-6', 'Calories burned in unspecified time Pedometer');

const own = (path: string, display?: string): CodedMember => ({ path, coding: OWN_CODE, ...(display ? { display } : {}) });
const coded = (path: string, coding: StandardCoding): CodedMember => ({ path, coding });

/** One schema whose single member is its value and carries the observation's code. */
function single(code: string, path: string, coding: StandardCoding | undefined, display?: string): SchemaCodes {
  return { code, coding, principal: path, members: [coding ? coded(path, coding) : own(path, display)] };
}

export const STANDARD_CODES: readonly SchemaCodes[] = [
  {
    code: 'omh:blood-glucose:4.0',
    coding: GLUCOSE_MASS,
    principal: 'blood_glucose',
    specimen: 'specimen_source',
    members: [
      {
        path: 'blood_glucose',
        coding: GLUCOSE_MASS,
        variants: [
          { specimen: undefined, codings: [GLUCOSE_MASS, GLUCOSE_MOLES] },
          { specimen: 'capillary blood', codings: [CAPILLARY_GLUCOSE_MASS, CAPILLARY_GLUCOSE_MOLES] },
          { specimen: 'interstitial fluid', codings: [INTERSTITIAL_GLUCOSE_MASS, INTERSTITIAL_GLUCOSE_MOLES] },
        ],
      },
    ],
  },
  {
    code: 'omh:blood-pressure:4.0',
    coding: loinc('85354-9', 'Blood pressure panel with all children optional'),
    principal: undefined,
    members: [
      coded('systolic_blood_pressure', loinc('8480-6', 'Systolic blood pressure')),
      coded('diastolic_blood_pressure', loinc('8462-4', 'Diastolic blood pressure')),
    ],
  },
  single('omh:body-temperature:4.0', 'body_temperature', BODY_TEMPERATURE),
  single('omh:heart-rate:2.0', 'heart_rate', HEART_RATE),
  {
    code: 'omh:oxygen-saturation:2.0',
    coding: SPO2,
    principal: 'oxygen_saturation',
    members: [coded('oxygen_saturation', SPO2), coded('supplemental_oxygen_flow_rate', loinc('3151-8', 'Inhaled oxygen flow rate'))],
  },
  single('omh:respiratory-rate:2.0', 'respiratory_rate', RESPIRATORY_RATE),
  single('omh:rr-interval:1.0', 'rr_interval', undefined, 'RR interval'),
  single('omh:body-weight:3.0', 'body_weight', BODY_WEIGHT),
  single('omh:forced-vital-capacity:1.0', 'forced_vital_capacity', FVC),
  single('omh:forced-expiratory-volume-1-second:1.0', 'forced_expiratory_volume_1_second', FEV1),
  {
    code: 'omh:physical-activity:1.2',
    coding: EXERCISE_ACTIVITY,
    principal: undefined,
    members: [own('distance'), coded('kcal_burned', CALORIES_BURNED)],
  },
  single('omh:step-count:3.0', 'step_count', STEPS),
  {
    code: 'ieee:sleep-stage-summary:1.0',
    coding: SLEEP,
    principal: undefined,
    members: [
      coded('sleep_stage_summary.total_sleep_time', SLEEP_DURATION),
      own('sleep_stage_summary.sleep_efficiency_percentage'),
      own('sleep_stage_summary.rem_sleep_percentage'),
      own('sleep_stage_summary.light_sleep_percentage'),
      own('sleep_stage_summary.deep_sleep_percentage'),
      own('sleep_stage_summary.awake_percentage'),
      own('sleep_stage_summary.latency_to_sleep_onset'),
      own('sleep_stage_summary.latency_to_arising'),
      coded('sleep_stage_summary.rem_sleep_duration', REM_SLEEP),
      coded('sleep_stage_summary.light_sleep_duration', LIGHT_SLEEP),
      coded('sleep_stage_summary.deep_sleep_duration', DEEP_SLEEP),
      own('sleep_stage_summary.awake_duration'),
    ],
  },
  {
    code: 'omh:sleep-episode:1.1',
    coding: SLEEP,
    principal: undefined,
    members: [
      own('latency_to_sleep_onset'),
      own('latency_to_arising'),
      coded('total_sleep_time', SLEEP_DURATION),
      own('wake_after_sleep_onset'),
      own('sleep_maintenance_efficiency_percentage'),
    ],
  },
  single('omh:sleep-duration:2.0', 'sleep_duration', SLEEP_DURATION),
  {
    code: 'ieee:physical-activity:1.0',
    coding: EXERCISE_ACTIVITY,
    principal: undefined,
    members: [
      own('base_movement_quantity'),
      own('distance'),
      own('cumulative_elevation_gain'),
      coded('duration', EXERCISE_DURATION),
      own('duration_light_activity'),
      own('duration_moderate_activity'),
      own('duration_vigorous_activity'),
      own('average_cadence'),
      own('average_speed'),
      coded('kcal_burned', CALORIES_BURNED),
    ],
  },
  {
    code: 'ieee:sleep-episode:1.0',
    coding: SLEEP,
    principal: undefined,
    members: [
      own('latency_to_sleep_onset'),
      own('latency_to_arising'),
      coded('total_sleep_time', SLEEP_DURATION),
      coded('light_sleep_duration', LIGHT_SLEEP),
      coded('deep_sleep_duration', DEEP_SLEEP),
      coded('rem_sleep_duration', REM_SLEEP),
      own('wake_after_sleep_onset'),
      own('sleep_efficiency_percentage'),
    ],
  },
  single('ieee:time-in-bed:1.0', 'time_in_bed', undefined),
  single('omh:total-sleep-time:1.0', 'total_sleep_time', SLEEP_DURATION),
  {
    code: 'ieee:food-entry:0.1',
    coding: undefined,
    principal: 'food_amount',
    members: ['food_amount', 'protein', 'carbohydrate', 'fat', 'saturated_fat', 'cholesterol', 'sodium', 'potassium', 'fiber', 'sugar', 'calories'].map((path) => own(path)),
  },
];
