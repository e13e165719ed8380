/** Body schemas of physical activity and step count. */
import { durationUnitValue, IEEE_TIME_INTERVAL, OMH_TIME_FRAME, OMH_TIME_INTERVAL, unitValue } from './blocks';
import { number, object, opt, req, string } from './validate';
import {
  ACTIVITY_INTENSITY, DESCRIPTIVE_STATISTIC, DESCRIPTIVE_STATISTIC_1_0, LENGTH_UNITS, SPEED_UNITS,
} from './vocabulary';

/** Open mHealth physical-activity 1.2: only the activity name is required, even the time frame is not. */
export const omhPhysicalActivity12 = object({
  activity_name: req(string),
  effective_time_frame: opt(OMH_TIME_FRAME),
  distance: opt(unitValue(LENGTH_UNITS)),
  kcal_burned: opt(unitValue(['kcal'])),
  reported_activity_intensity: opt(ACTIVITY_INTENSITY),
  met_value: opt(number),
});

export const stepCount3 = object({
  step_count: req(unitValue(['steps'])),
  effective_time_frame: req(OMH_TIME_INTERVAL),
  descriptive_statistic: opt(DESCRIPTIVE_STATISTIC_1_0),
  descriptive_statistic_denominator: opt(string),
});

export const ieeePhysicalActivity1 = object({
  activity_name: req(string),
  effective_time_frame: req(IEEE_TIME_INTERVAL),
  base_movement_quantity: opt(unitValue()),
  distance: opt(unitValue(LENGTH_UNITS)),
  cumulative_elevation_gain: opt(unitValue(LENGTH_UNITS)),
  duration: opt(durationUnitValue()),
  duration_light_activity: opt(durationUnitValue()),
  duration_moderate_activity: opt(durationUnitValue()),
  duration_vigorous_activity: opt(durationUnitValue()),
  average_cadence: opt(unitValue()),
  average_speed: opt(unitValue(SPEED_UNITS)),
  kcal_burned: opt(unitValue(['kcal'])),
  reported_activity_intensity: opt(ACTIVITY_INTENSITY),
  met_value: opt(number),
  descriptive_statistic: opt(DESCRIPTIVE_STATISTIC),
  descriptive_statistic_denominator: opt(string),
});
