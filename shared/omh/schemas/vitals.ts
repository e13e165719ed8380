/** Body schemas of vital signs and spirometry (Open mHealth). */
import { durationUnitValue, IEEE_TIME_FRAME, OMH_TIME_FRAME, unitValue } from './blocks';
import { enumOf, object, opt, req } from './validate';
import {
  BODY_LOCATION, BODY_POSTURE, DESCRIPTIVE_STATISTIC, MASS_UNITS, SPECIMEN_SOURCE, TEMPERATURE_UNITS,
  TEMPORAL_RELATIONSHIP_TO_MEAL, TEMPORAL_RELATIONSHIP_TO_PHYSICAL_ACTIVITY, TEMPORAL_RELATIONSHIP_TO_SLEEP,
} from './vocabulary';

export const bloodPressure4 = object({
  systolic_blood_pressure: req(unitValue(['mmHg'])),
  diastolic_blood_pressure: req(unitValue(['mmHg'])),
  effective_time_frame: req(IEEE_TIME_FRAME),
  body_posture: opt(BODY_POSTURE),
  measurement_location: opt(BODY_LOCATION),
  descriptive_statistic: opt(DESCRIPTIVE_STATISTIC),
  temporal_relationship_to_physical_activity: opt(TEMPORAL_RELATIONSHIP_TO_PHYSICAL_ACTIVITY),
});

export const bloodGlucose4 = object({
  blood_glucose: req(unitValue(['mg/dL', 'mmol/L'])),
  effective_time_frame: req(IEEE_TIME_FRAME),
  specimen_source: opt(SPECIMEN_SOURCE),
  temporal_relationship_to_meal: opt(TEMPORAL_RELATIONSHIP_TO_MEAL),
  temporal_relationship_to_sleep: opt(TEMPORAL_RELATIONSHIP_TO_SLEEP),
  descriptive_statistic: opt(DESCRIPTIVE_STATISTIC),
});

export const bodyTemperature4 = object({
  body_temperature: req(unitValue(TEMPERATURE_UNITS)),
  effective_time_frame: req(IEEE_TIME_FRAME),
  measurement_location: opt(
    enumOf(['axillary', 'finger', 'forehead', 'oral', 'rectal', 'temporal artery', 'toe', 'tympanic', 'wrist', 'vagina']),
  ),
  temporal_relationship_to_sleep: opt(TEMPORAL_RELATIONSHIP_TO_SLEEP),
  descriptive_statistic: opt(DESCRIPTIVE_STATISTIC),
});

export const bodyWeight3 = object({
  body_weight: req(unitValue(MASS_UNITS)),
  effective_time_frame: req(IEEE_TIME_FRAME),
  descriptive_statistic: opt(DESCRIPTIVE_STATISTIC),
});

export const heartRate2 = object({
  heart_rate: req(unitValue(['beats/min'])),
  effective_time_frame: req(OMH_TIME_FRAME),
  descriptive_statistic: opt(DESCRIPTIVE_STATISTIC),
  temporal_relationship_to_physical_activity: opt(TEMPORAL_RELATIONSHIP_TO_PHYSICAL_ACTIVITY),
  temporal_relationship_to_sleep: opt(TEMPORAL_RELATIONSHIP_TO_SLEEP),
});

export const oxygenSaturation2 = object({
  oxygen_saturation: req(unitValue(['%'])),
  effective_time_frame: req(OMH_TIME_FRAME),
  system: opt(enumOf(['peripheral capillary'])),
  supplemental_oxygen_flow_rate: opt(unitValue(['L/min'])),
  oxygen_therapy_mode_of_administration: opt(enumOf(['nasal cannula'])),
  measurement_method: opt(enumOf(['pulse oximetry'])),
  descriptive_statistic: opt(DESCRIPTIVE_STATISTIC),
});

export const respiratoryRate2 = object({
  respiratory_rate: req(unitValue(['breaths/min'])),
  effective_time_frame: req(OMH_TIME_FRAME),
  descriptive_statistic: opt(DESCRIPTIVE_STATISTIC),
  temporal_relationship_to_physical_activity: opt(TEMPORAL_RELATIONSHIP_TO_PHYSICAL_ACTIVITY),
});

/** The one body whose time frame is optional among the vitals. */
export const rrInterval1 = object({
  rr_interval: req(durationUnitValue(['ms'])),
  effective_time_frame: opt(OMH_TIME_FRAME),
  descriptive_statistic: opt(DESCRIPTIVE_STATISTIC),
  temporal_relationship_to_physical_activity: opt(TEMPORAL_RELATIONSHIP_TO_PHYSICAL_ACTIVITY),
});

/** FVC and FEV1 differ only in the name of the measured member. */
function spirometry(measured: string) {
  return object({
    [measured]: req(unitValue(['L'])),
    effective_time_frame: req(IEEE_TIME_FRAME),
    // No declared type: any value outside the enum fails, whatever its type.
    measurement_quality: opt(enumOf(['acceptable', 'usable', 'rejected'])),
    descriptive_statistic: opt(DESCRIPTIVE_STATISTIC),
    temporal_relationship_to_physical_activity: opt(TEMPORAL_RELATIONSHIP_TO_PHYSICAL_ACTIVITY),
  });
}

export const forcedVitalCapacity1 = spirometry('forced_vital_capacity');
export const forcedExpiratoryVolume1Second1 = spirometry('forced_expiratory_volume_1_second');
