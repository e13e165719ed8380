/**
 * Glucose sensor traces for the tests of shared/cgm/, and the figures the consensus defines,
 * computed from the raw readings the plainest way (a sort, a loop, a `Date`), for the module's
 * figures to be held to. Nothing here uses the module's digests, bands or bins.
 */
import type { CgmReading } from '../../shared/cgm/digest';
import type { StoredObservation } from '../../shared/observations/model';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export interface TraceSpec {
  /** First reading's instant. */
  start: number;
  /** Readings every this many minutes... */
  everyMinutes: number;
  /** ...for this long. */
  days: number;
  /** The value (mg/dL) of the i-th reading. */
  value: (i: number, at: number) => number;
  /** Each reading's UTC offset (minutes); 0 when not given. */
  offset?: (at: number) => number;
  /** Readings the sensor missed. */
  missing?: (at: number) => boolean;
}

/** A sensor's readings, every `everyMinutes` from `start`. */
export function trace({ start, everyMinutes, days, value, offset = () => 0, missing = () => false }: TraceSpec): CgmReading[] {
  const readings: CgmReading[] = [];
  const count = Math.round((days * DAY) / (everyMinutes * MINUTE));
  for (let i = 0; i < count; i += 1) {
    const at = start + i * everyMinutes * MINUTE;
    if (!missing(at)) readings.push({ at, offsetMinutes: offset(at), mgdl: value(i, at) });
  }
  return readings;
}

export const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

/** The population standard deviation. */
export const sd = (values: readonly number[]): number => {
  const m = mean(values);
  return Math.sqrt(values.reduce((a, v) => a + (v - m) ** 2, 0) / values.length);
};

/** The p-th quantile (0..1) of values, numpy's `linear` method. */
export function quantile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/** The consensus's bands of a value in mg/dL, as whole mg/dL read them. */
export function bandInMgdl(mgdl: number): 'veryLow' | 'low' | 'target' | 'high' | 'veryHigh' {
  const v = Math.round(mgdl);
  if (v < 54) return 'veryLow';
  if (v <= 69) return 'low';
  if (v <= 180) return 'target';
  if (v <= 250) return 'high';
  return 'veryHigh';
}

/** The consensus's bands of a value in mmol/L, as a sensor's 0.1 mmol/L read them. */
export function bandInMmolL(mmolL: number): 'veryLow' | 'low' | 'target' | 'high' | 'veryHigh' {
  const v = Math.round(mmolL * 10) / 10;
  if (v < 3.0) return 'veryLow';
  if (v <= 3.8) return 'low';
  if (v <= 10.0) return 'target';
  if (v <= 13.9) return 'high';
  return 'veryHigh';
}

/** Share (%) of the readings in each band. */
export function bandPercents(readings: readonly CgmReading[], bandOf: (r: CgmReading) => string = (r) => bandInMgdl(r.mgdl)): Record<string, number> {
  const counts: Record<string, number> = { veryLow: 0, low: 0, target: 0, high: 0, veryHigh: 0 };
  for (const r of readings) counts[bandOf(r)]! += 1;
  return Object.fromEntries(Object.entries(counts).map(([band, n]) => [band, (100 * n) / readings.length]));
}

/** The reading's minute of the day on its own clock, read with a `Date`. */
export function localMinute(r: CgmReading): number {
  const wall = new Date(r.at + r.offsetMinutes * MINUTE);
  return wall.getUTCHours() * 60 + wall.getUTCMinutes();
}

/** The values of each 15-minute bin of the local day. */
export function valuesByBin(readings: readonly CgmReading[]): number[][] {
  const bins: number[][] = Array.from({ length: 96 }, () => []);
  for (const r of readings) bins[Math.floor(localMinute(r) / 15)]!.push(r.mgdl);
  return bins;
}

/** The 24-hour days from `from` holding a reading. */
export const daysWithReadings = (readings: readonly CgmReading[], from: number): number => new Set(readings.map((r) => Math.floor((r.at - from) / DAY))).size;

/** The interval the readings show: their lower middle gap (seconds rounded), in whole minutes from a minute up. */
export function medianGapMinutes(readings: readonly CgmReading[]): number | undefined {
  const ats = readings.map((r) => r.at).sort((a, b) => a - b);
  const gaps = ats
    .slice(1)
    .map((at, i) => Math.round((at - ats[i]!) / 1000))
    .filter((s) => s > 0)
    .sort((a, b) => a - b);
  if (gaps.length === 0) return undefined;
  const seconds = gaps[Math.floor((gaps.length - 1) / 2)]!;
  return seconds >= 60 ? Math.round(seconds / 60) : seconds / 60;
}

/** The readings of each UTC day, as a store keeps them apart. */
export function byUtcDay(readings: readonly CgmReading[]): CgmReading[][] {
  const days = new Map<number, CgmReading[]>();
  for (const r of readings) {
    const day = Math.floor(r.at / DAY);
    const held = days.get(day);
    if (held) held.push(r);
    else days.set(day, [r]);
  }
  return [...days.values()];
}

/** An instant as an RFC 3339 date-time on a clock `offsetMinutes` from UTC (`2026-03-08T01:55:00-08:00`), written with a `Date`. */
export function dateTimeOn(at: number, offsetMinutes: number): string {
  const wall = new Date(at + offsetMinutes * MINUTE).toISOString().slice(0, 19);
  if (offsetMinutes === 0) return `${wall}Z`;
  const abs = Math.abs(offsetMinutes);
  return `${wall}${offsetMinutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** The body members of a blood glucose reading as a sensor (or, with another specimen, a glucometer) uploads it. */
export function glucoseMembers(at: number, offsetMinutes: number, value: number, unit: 'mg/dL' | 'mmol/L', specimen = 'interstitial fluid'): Record<string, unknown> {
  return {
    blood_glucose: { value, unit },
    effective_time_frame: { date_time: dateTimeOn(at, offsetMinutes) },
    specimen_source: specimen,
    temporal_relationship_to_meal: undefined,
    temporal_relationship_to_sleep: undefined,
  };
}

/** A stored blood glucose reading whose values are lifted from its payload (as one stored before values were kept), for the statistics' value groups. */
export function storedGlucose(value: number, unit: string, specimen: string | undefined, status: StoredObservation['status'] = 'final'): StoredObservation {
  const body = { blood_glucose: { value, unit }, ...(specimen ? { specimen_source: specimen } : {}) };
  return { status, data: Buffer.from(JSON.stringify({ header: { uuid: 'u' }, body })).toString('base64') } as StoredObservation;
}
