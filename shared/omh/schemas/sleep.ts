/** Body schemas of sleep (Open mHealth and IEEE 1752). All of them take only time intervals. */
import { durationUnitValue, IEEE_TIME_INTERVAL, OMH_TIME_INTERVAL, unitValue } from './blocks';
import { arrayOf, boolean, enumOf, integer, object, opt, req, string, type Member } from './validate';
import { DESCRIPTIVE_STATISTIC } from './vocabulary';

const percentage = opt(unitValue(['%']));
const anyDuration = opt(durationUnitValue());

/** The statistic pair several sleep bodies share. */
const statistic: Record<string, Member> = {
  descriptive_statistic: opt(DESCRIPTIVE_STATISTIC),
  descriptive_statistic_denominator: opt(string),
};

export const omhSleepEpisode11 = object({
  effective_time_frame: req(OMH_TIME_INTERVAL),
  latency_to_sleep_onset: anyDuration,
  latency_to_arising: anyDuration,
  total_sleep_time: anyDuration,
  wake_after_sleep_onset: anyDuration,
  number_of_awakenings: opt(integer),
  is_main_sleep: opt(boolean),
  sleep_maintenance_efficiency_percentage: percentage,
});

export const sleepDuration2 = object({
  sleep_duration: req(durationUnitValue(['sec', 'min', 'h'])),
  effective_time_frame: req(OMH_TIME_INTERVAL),
  ...statistic,
});

export const totalSleepTime1 = object({
  total_sleep_time: req(durationUnitValue()),
  effective_time_frame: req(OMH_TIME_INTERVAL),
  ...statistic,
});

export const ieeeSleepEpisode1 = object({
  effective_time_frame: req(IEEE_TIME_INTERVAL),
  latency_to_sleep_onset: anyDuration,
  latency_to_arising: anyDuration,
  total_sleep_time: anyDuration,
  light_sleep_duration: anyDuration,
  deep_sleep_duration: anyDuration,
  rem_sleep_duration: anyDuration,
  wake_after_sleep_onset: anyDuration,
  number_of_awakenings: opt(integer),
  is_main_sleep: opt(boolean),
  sleep_efficiency_percentage: percentage,
});

export const timeInBed1 = object({
  time_in_bed: req(durationUnitValue()),
  effective_time_frame: req(IEEE_TIME_INTERVAL),
  is_main_sleep: opt(boolean),
  ...statistic,
});

const sleepStageSummary = object({
  total_sleep_time: req(durationUnitValue()),
  sleep_efficiency_percentage: percentage,
  rem_sleep_percentage: percentage,
  light_sleep_percentage: percentage,
  deep_sleep_percentage: percentage,
  awake_percentage: percentage,
  latency_to_sleep_onset: anyDuration,
  latency_to_arising: anyDuration,
  rem_sleep_duration: anyDuration,
  light_sleep_duration: anyDuration,
  deep_sleep_duration: anyDuration,
  awake_duration: anyDuration,
  rem_sleep_episode_count: opt(integer),
  light_sleep_episode_count: opt(integer),
  deep_sleep_episode_count: opt(integer),
  number_of_awakenings: opt(integer),
  ...statistic,
});

const sleepStageEpisode = object({
  sleep_stage_state: req(enumOf(['REM_sleep', 'Light_sleep', 'Deep_sleep', 'Unknown_sleep', 'Awake'])),
  sleep_stage_time_frame: req(IEEE_TIME_INTERVAL),
});

export const sleepStageSummary1 = object({
  sleep_stage_summary: req(sleepStageSummary),
  effective_time_frame: req(IEEE_TIME_INTERVAL),
  sleep_stage_episodes: opt(arrayOf(sleepStageEpisode)),
  is_main_sleep: opt(boolean),
});
