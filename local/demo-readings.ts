/**
 * What the demo readings of `npm start` say (`demo-observations.ts` uploads them): two weeks that
 * look like a person's, so a value search, `$stats` per day or an assistant's summary has something
 * to find. A heart rate that follows the day (lowest asleep, highest in a daily workout), blood
 * pressures around 125/80 with some days above 140, a glucose sensor's trace every 15 minutes (three
 * meals a day, a low some nights), a weight drifting down, an oxygen saturation of 94-99 %, and the
 * steps, sleep and workouts that go with them. Times of day are UTC (the demo has no time zone).
 *
 * Deterministic: a value depends only on its reading's clock time and on how many days before the
 * seed's day it lies, its noise a hash of those (no state, no `Math.random`), so every fresh data
 * folder holds the same numbers at the same times of day.
 */
import { MS_PER_DAY, MS_PER_MINUTE } from '../shared/omh/datetime';
import type { EffectiveForm } from '../shared/omh/samples';

/** One reading: when, how its time is written, and the body members set over the code's sample. */
export interface DemoReading {
  at: number;
  form: EffectiveForm;
  spanMinutes?: number;
  /** `SampleOptions.members`: values, and the sample's members that do not fit left out (`undefined`). */
  members: Readonly<Record<string, unknown>>;
}

/** The readings of one code over a window of time. */
export interface DemoSeries {
  code: string;
  readings: (window: DemoWindow) => DemoReading[];
}

/** Readings start at or after `from` and end at or before `until` (an hour boundary, the seed's "now"). */
export interface DemoWindow {
  from: number;
  until: number;
}

const HOUR_MS = 60 * MS_PER_MINUTE;
const MINUTES_PER_DAY = 1440;

/** Where a reading lies: days before the window's last day, and the UTC minute of its day. */
interface ClockTime {
  day: number;
  minute: number;
}

const clockTime = (window: DemoWindow, at: number): ClockTime => ({
  day: Math.floor(window.until / MS_PER_DAY) - Math.floor(at / MS_PER_DAY),
  minute: Math.floor((at % MS_PER_DAY) / MS_PER_MINUTE),
});

/** Separate streams of noise, so the glucose trace does not echo the heart rate's. */
const STREAM = { heartRate: 1, workout: 2, pressure: 3, weight: 4, saturation: 5, steps: 6, sleep: 7, glucose: 8, meals: 9 } as const;

/** A number in [0, 1) fixed by its integer keys: a 32-bit mix of each key in turn. */
function draw(...keys: readonly number[]): number {
  let h = 0x2545f491;
  for (const key of keys) {
    h = Math.imul(h ^ (key | 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return (h >>> 0) / 2 ** 32;
}

/** Roughly normal noise with mean 0 and standard deviation 1 (within ±3.5), fixed by its keys. */
function noise(...keys: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < 4; i++) sum += draw(...keys, i);
  return (sum - 2) * Math.sqrt(3);
}

const between = (low: number, high: number, u: number) => low + (high - low) * u;
const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));
const oneDecimal = (value: number) => Math.round(value * 10) / 10;

/** Start times every `hours` from the window's start, each reading's span inside the window. */
function every(window: DemoWindow, hours: number, spanMinutes = 0): number[] {
  const out: number[] = [];
  for (let at = window.from; at + spanMinutes * MS_PER_MINUTE <= window.until && at < window.until; at += hours * HOUR_MS) out.push(at);
  return out;
}

/** The first instant of each UTC day the window touches, plus `minute` (a daily event), within it. */
function daily(window: DemoWindow, minuteOf: (day: number) => number, spanMinutes: number): number[] {
  const out: number[] = [];
  for (let dayStart = Math.floor(window.from / MS_PER_DAY) * MS_PER_DAY; dayStart < window.until; dayStart += MS_PER_DAY) {
    const at = dayStart + minuteOf(clockTime(window, dayStart).day) * MS_PER_MINUTE;
    if (at >= window.from && at + spanMinutes * MS_PER_MINUTE <= window.until) out.push(at);
  }
  return out;
}

const asleep = (minute: number) => minute >= 23 * 60 || minute < 6 * 60 + 30;

// -- the daily workout ----------------------------------------------------------------------------

export const WORKOUT_MINUTES = 40;

interface Workout {
  /** UTC minute of the day it starts (a multiple of 5). */
  start: number;
  /** Heart rate it holds between warming up and cooling down. */
  peak: number;
  running: boolean;
}

/** Each day's workout: most days in the early evening, some mornings; running or cycling. */
function workoutOf(day: number): Workout {
  const morning = draw(STREAM.workout, day, 0) < 0.3;
  const start = morning ? 6 * 60 + 40 + Math.floor(draw(STREAM.workout, day, 1) * 40) : 17 * 60 + Math.floor(draw(STREAM.workout, day, 1) * 90);
  return { start: start - (start % 5), peak: Math.round(between(132, 152, draw(STREAM.workout, day, 2))), running: draw(STREAM.workout, day, 3) < 0.6 };
}

// -- heart rate -----------------------------------------------------------------------------------

/** The resting heart rate through the day (hour, beats/min): lowest before dawn, highest after lunch. */
const RESTING_CURVE: ReadonlyArray<readonly [number, number]> = [
  [0, 57], [3, 53], [5, 55], [7, 66], [9, 73], [12, 76], [14, 78], [17, 74], [20, 70], [22, 63], [24, 57],
];

function restingRate(minute: number): number {
  const hour = minute / 60;
  const i = RESTING_CURVE.findIndex(([h]) => h > hour);
  const [h0, v0] = RESTING_CURVE[i - 1]!;
  const [h1, v1] = RESTING_CURVE[i]!;
  return v0 + ((v1 - v0) * (hour - h0)) / (h1 - h0);
}

/** Warming up to the peak in 6 minutes, holding it, cooling down over the last 8. */
function exerciseRate(into: number, peak: number): number {
  if (into < 6) return between(100, peak, into / 6);
  if (into < WORKOUT_MINUTES - 8) return peak;
  return between(peak, 108, (into - (WORKOUT_MINUTES - 8)) / 8);
}

/** A heart rate at a clock time, and whether it was taken during the workout. */
function heartRateAt(person: number, time: ClockTime): { bpm: number; exercising: boolean } {
  const { day, minute } = time;
  const workout = workoutOf(day);
  const into = minute - workout.start;
  const jitter = noise(STREAM.heartRate, person, day, minute);
  if (into >= 0 && into < WORKOUT_MINUTES) return { bpm: Math.round(exerciseRate(into, workout.peak) + 4 * jitter), exercising: true };
  // An hour of recovery after the workout; each day a little above or below the usual.
  const recovery = into >= WORKOUT_MINUTES && into < WORKOUT_MINUTES + 60 ? 22 * (1 - (into - WORKOUT_MINUTES) / 60) : 0;
  const dayOffset = 2.5 * noise(STREAM.heartRate, person, day);
  return { bpm: Math.round(restingRate(minute) + recovery + dayOffset + 3 * jitter), exercising: false };
}

const INTERVAL_FORMS: readonly EffectiveForm[] = ['start_end', 'start_duration', 'end_duration', 'date_part_of_day'];

function heartRateReading(person: number, window: DemoWindow, at: number, form: EffectiveForm, spanMinutes?: number): DemoReading {
  const time = clockTime(window, at);
  const { bpm, exercising } = heartRateAt(person, time);
  const sleeping = !exercising && asleep(time.minute);
  return {
    at,
    form,
    ...(spanMinutes ? { spanMinutes } : {}),
    members: {
      heart_rate: { value: bpm, unit: 'beats/min' },
      descriptive_statistic: INTERVAL_FORMS.includes(form) ? 'average' : undefined,
      temporal_relationship_to_physical_activity: exercising ? 'during exercise' : sleeping ? 'at rest' : undefined,
      temporal_relationship_to_sleep: sleeping ? 'during sleep' : undefined,
    },
  };
}

/**
 * Heart rate every `hours`, in `forms` by turns; with `workouts`, also every 5 minutes of each
 * day's workout (3 minutes past, so never at the same instant as an hourly one).
 */
export function heartRates(options: { person: number; hours: number; forms: readonly EffectiveForm[]; spanMinutes?: number; workouts: boolean }): DemoSeries {
  const { person, hours, forms, spanMinutes, workouts } = options;
  return {
    code: 'omh:heart-rate:2.0',
    readings: (window) => {
      const regular = every(window, hours, spanMinutes).map((at, n) => heartRateReading(person, window, at, forms[n % forms.length]!, spanMinutes));
      if (!workouts) return regular;
      const during = daily(window, (day) => workoutOf(day).start + 3, WORKOUT_MINUTES - 5).flatMap((start) =>
        Array.from({ length: WORKOUT_MINUTES / 5 }, (_, k) => start + k * 5 * MS_PER_MINUTE),
      );
      return [...regular, ...during.map((at) => heartRateReading(person, window, at, 'date_time'))];
    },
  };
}

// -- the other vital signs ------------------------------------------------------------------------

/** Morning and evening: around 125/80, higher in the morning, and on about a third of days above 140. */
export const bloodPressures: DemoSeries = {
  code: 'omh:blood-pressure:4.0',
  readings: (window) =>
    every(window, 12).map((at) => {
      const { day, minute } = clockTime(window, at);
      const stressed = draw(STREAM.pressure, day) < 0.35;
      const morning = minute >= 5 * 60 && minute < 11 * 60;
      const systolic = Math.round(121 + (morning ? 6 : 0) + (stressed ? 18 : 0) + 5 * noise(STREAM.pressure, day, minute, 0));
      const diastolic = Math.round(0.55 * systolic + 12 + 3 * noise(STREAM.pressure, day, minute, 1));
      return {
        at,
        form: 'date_time',
        members: { systolic_blood_pressure: { value: systolic, unit: 'mmHg' }, diastolic_blood_pressure: { value: diastolic, unit: 'mmHg' } },
      };
    }),
};

/** Every other day, about 73 kg and half a kilogram less two weeks later. */
export const bodyWeights: DemoSeries = {
  code: 'omh:body-weight:3.0',
  readings: (window) =>
    every(window, 48).map((at) => {
      const { day } = clockTime(window, at);
      return { at, form: 'date_time', members: { body_weight: { value: oneDecimal(72.6 + 0.045 * day + 0.2 * noise(STREAM.weight, day)), unit: 'kg' } } };
    }),
};

/** Every 8 hours, 94-99 % (a little lower asleep), breathing room air. */
export const oxygenSaturations: DemoSeries = {
  code: 'omh:oxygen-saturation:2.0',
  readings: (window) =>
    every(window, 8).map((at, n) => {
      const { day, minute } = clockTime(window, at);
      const value = clamp(Math.round((asleep(minute) ? 95.6 : 97.3) + 0.9 * noise(STREAM.saturation, day, minute)), 94, 99);
      return {
        at,
        form: n % 2 === 0 ? 'date_time' : 'date_part_of_day',
        members: { oxygen_saturation: { value, unit: '%' }, supplemental_oxygen_flow_rate: undefined, oxygen_therapy_mode_of_administration: undefined },
      };
    }),
};

// -- activity and sleep ---------------------------------------------------------------------------

/** The steps of each 24 hours: 6,000 to 13,000, more on running days. */
export const stepCounts: DemoSeries = {
  code: 'omh:step-count:3.0',
  readings: (window) =>
    every(window, 24, MINUTES_PER_DAY).map((at) => {
      const { day } = clockTime(window, at + MS_PER_DAY - 1);
      const steps = Math.round(between(4800, 8400, draw(STREAM.steps, day)) + (workoutOf(day).running ? 5000 : 1200));
      return { at, form: 'start_end', spanMinutes: MINUTES_PER_DAY, members: { step_count: { value: steps, unit: 'steps' } } };
    }),
};

/** Each day's workout as an activity: its time, its kind, distance and energy. */
export const workouts: DemoSeries = {
  code: 'omh:physical-activity:1.2',
  readings: (window) =>
    daily(window, (day) => workoutOf(day).start, WORKOUT_MINUTES).map((at, n) => {
      const { day } = clockTime(window, at);
      const { running } = workoutOf(day);
      const u = draw(STREAM.workout, day, 4);
      return {
        at,
        form: n % 2 === 0 ? 'start_duration' : 'end_duration',
        spanMinutes: WORKOUT_MINUTES,
        members: {
          activity_name: running ? 'running' : 'cycling',
          distance: { value: oneDecimal(running ? between(6, 7.6, u) : between(13, 18, u)), unit: 'km' },
          kcal_burned: { value: Math.round(between(380, 480, u)), unit: 'kcal' },
          reported_activity_intensity: 'vigorous',
          met_value: running ? 9.8 : 7.5,
        },
      };
    }),
};

/** Each night from about 23:00, 7 to 8 hours, a few awakenings. */
export const sleepEpisodes: DemoSeries = {
  code: 'omh:sleep-episode:1.1',
  readings: (window) =>
    daily(window, (day) => 22 * 60 + 45 + Math.round(45 * draw(STREAM.sleep, day, 0)), 0).flatMap((at) => {
      const { day } = clockTime(window, at);
      const inBed = Math.round(between(420, 500, draw(STREAM.sleep, day, 1)));
      if (at + inBed * MS_PER_MINUTE > window.until) return [];
      const latency = Math.round(between(5, 25, draw(STREAM.sleep, day, 2)));
      const awake = Math.round(between(10, 45, draw(STREAM.sleep, day, 3)));
      const asleepMinutes = inBed - latency - awake;
      return [{
        at,
        form: 'start_end' as const,
        spanMinutes: inBed,
        members: {
          latency_to_sleep_onset: { value: latency, unit: 'min' },
          total_sleep_time: { value: asleepMinutes, unit: 'min' },
          number_of_awakenings: Math.floor(draw(STREAM.sleep, day, 4) * 5),
          is_main_sleep: true,
          sleep_maintenance_efficiency_percentage: { value: Math.round((100 * asleepMinutes) / (inBed - latency)), unit: '%' },
        },
      }];
    }),
};

// -- the glucose sensor ---------------------------------------------------------------------------

/**
 * The demo patient's continuous glucose monitor: a reading every 5 minutes (288 a day, 4,032 in two
 * weeks), as a sensor sends them. The level is modelled every 5 minutes (`SENSOR_MINUTES`); a
 * multiple of 5 that divides a day would upload fewer of them, the values at shared instants the same.
 */
export const GLUCOSE_EVERY_MINUTES = 5;
export const GLUCOSE_PER_DAY = 1440 / GLUCOSE_EVERY_MINUTES;
const SENSOR_MINUTES = 5;
const SENSOR_SLOTS = MINUTES_PER_DAY / SENSOR_MINUTES;

/** Breakfast, lunch and dinner: usual UTC minute, how far it wanders, and the rise it brings (mg/dL). */
const MEALS = [
  { minute: 7 * 60 + 30, wander: 30, rise: [35, 85] },
  { minute: 12 * 60 + 30, wander: 40, rise: [45, 110] },
  { minute: 19 * 60 + 15, wander: 45, rise: [60, 145] },
] as const;

/** A meal's rise over time: up within the first hour, back to nothing in about three. */
const mealShape = (minutesAfter: number) => (minutesAfter <= 0 ? 0 : (minutesAfter / 45) * Math.exp(1 - minutesAfter / 45));

/** A night's low: some nights the level sinks by 26-36 mg/dL for about two hours before dawn. */
function nightLow(day: number): { centre: number; depth: number } | undefined {
  if (draw(STREAM.glucose, day, 0) >= 0.4) return undefined;
  return { centre: 2 * 60 + Math.round(90 * draw(STREAM.glucose, day, 1)), depth: between(26, 36, draw(STREAM.glucose, day, 2)) };
}

/** A day's meals: when (UTC minute of that day) and how much each raises the level. */
const mealsOf = (day: number) =>
  MEALS.map((meal, i) => ({
    at: meal.minute + Math.round(meal.wander * (2 * draw(STREAM.meals, day, i, 0) - 1)),
    rise: between(meal.rise[0], meal.rise[1], draw(STREAM.meals, day, i, 1)),
  }));

/** Rising from 04:00 to 07:00, gone by 09:00 (the dawn phenomenon), at most 10 mg/dL. */
const dawnRise = (minute: number) => 10 * clamp(Math.min((minute - 240) / 180, (540 - minute) / 120), 0, 1);

const glucoseDays = new Map<number, readonly number[]>();

/** The sensor's level every 5 minutes of one day (mg/dL, whole numbers), from 00:00 UTC. */
function glucoseDay(day: number): readonly number[] {
  const known = glucoseDays.get(day);
  if (known) return known;
  // The day before's dinner still shows after midnight (`day` counts days back).
  const meals = [...mealsOf(day + 1).map((meal) => ({ ...meal, at: meal.at - MINUTES_PER_DAY })), ...mealsOf(day)];
  const low = nightLow(day);
  const workout = workoutOf(day);
  const fasting = 90 + 4 * noise(STREAM.glucose, day, 3);
  const values: number[] = [];
  // The sensor's error drifts: each value keeps most of the last one's.
  let drift = 0;
  for (let slot = 0; slot < SENSOR_SLOTS; slot++) {
    const minute = slot * SENSOR_MINUTES;
    drift = 0.8 * drift + 1.8 * noise(STREAM.glucose, day, 100 + slot);
    const dawn = dawnRise(minute);
    const eaten = meals.reduce((sum, meal) => sum + meal.rise * mealShape(minute - meal.at), 0);
    const dip = low ? low.depth * Math.exp(-(((minute - low.centre) / 45) ** 2)) : 0;
    const afterWorkout = minute - workout.start;
    const exercise = afterWorkout > 0 && afterWorkout < 150 ? 14 * Math.sin((Math.PI * afterWorkout) / 150) : 0;
    values.push(Math.round(clamp(fasting + dawn + eaten - dip - exercise + drift, 40, 400)));
  }
  glucoseDays.set(day, values);
  return values;
}

/** The demo patient's glucose sensor (interstitial fluid, mg/dL): every `GLUCOSE_EVERY_MINUTES` of the window. */
export const glucoseTrace: DemoSeries = {
  code: 'omh:blood-glucose:4.0',
  readings: (window) => {
    const out: DemoReading[] = [];
    const step = GLUCOSE_EVERY_MINUTES * MS_PER_MINUTE;
    for (let at = Math.ceil(window.from / step) * step; at < window.until; at += step) {
      const { day, minute } = clockTime(window, at);
      out.push({
        at,
        form: 'date_time',
        members: {
          blood_glucose: { value: glucoseDay(day)[minute / SENSOR_MINUTES]!, unit: 'mg/dL' },
          specimen_source: 'interstitial fluid',
          temporal_relationship_to_meal: undefined,
          temporal_relationship_to_sleep: undefined,
        },
      });
    }
    return out;
  },
};
