/**
 * What a day of a patient's readings of one code comes to, value by value (docs/api.md#statistics-observationstats):
 * per member of the schema's quantities and per unit group, the count, sum, spread (Welford's M2),
 * minimum, maximum and an exact histogram (value -> how many times), so medians and quartiles over
 * any run of days are exact. Summaries merge (days into a period); nothing here reads a store.
 *
 * Decisions:
 * - Values are kept in their dimension's canonical unit (`canonicalOf(ucumOf(unit))`: kilograms and
 *   pounds of one day are one group in grams). A unit with no UCUM form keeps its values as
 *   uploaded, in a group of its own per unit text: such units are never mixed with each other or
 *   with converted values (a member may then have several groups, each answered on its own).
 * - Where a member's coding follows the reading's specimen too (a blood glucose: capillary blood,
 *   interstitial fluid), the specimen parts the groups as well, so each group has one coding: a
 *   group keeps the specimen only where its coding depends on it (`codedSpecimen`), so a saliva
 *   reading and one naming no specimen, coded alike, are one group.
 * - The spread is kept as M2 (the sum of squared deviations from the mean) rather than a sum of
 *   squares, which loses every digit to cancellation when values are large and close together.
 * - A reading with status `entered-in-error` counts as a reading of the day (the summary's
 *   `readings` orders summaries by the rows they saw) but gives no values, as the R5 operation says.
 * - The day is the UTC day of the effective start; an undated reading belongs to no day.
 * - A code whose readings may be a glucose sensor's (../cgm/readings.ts) keeps beside them the day's
 *   CGM digest (shared/cgm/digest.ts) of its sensor readings, from the same readings in the same
 *   recompute, so the sensor's metrics and profile over a period merge from the days' digests
 *   (../cgm/period.ts) by the same rule that keeps the rest of the summary right. The digest of
 *   each UTC hour is kept too (`HourDigest`, beside the day's summary), with the day's count of
 *   sensor readings per hour in the summary (`cgmHours`), so a period that starts or ends within a
 *   day takes that day's whole hours from their digests, and an hour's digest is used only when
 *   its count is the one its day's summary names.
 * - Beside the figures, each member's least and greatest value per UTC hour of the effective start
 *   (`bounds`), so a value search can skip the hours whose readings cannot match
 *   (../search/hours.ts). They are kept in the unit as uploaded (the search's unitless comparison
 *   is with the value as uploaded; one with a unit converts the bounds exactly as it converts a
 *   value), and over every reading, `entered-in-error` ones included: the search finds those too.
 */
import { summariseDay as digestOf, type CgmDayDigest, type CgmDigest, type CgmReading } from '../../cgm/digest';
import { mergeMoments, momentsOf } from '../../distribution';
import type { StoredObservation } from '../model';
import { codedSpecimen, canonicalOf, followsSpecimen, schemaQuantities, ucumOf } from '../../omh/quantities';
import { holdsSensorReadings, sensorReadingsOf } from '../cgm/readings';
import { readingSpecimen, readingValues } from '../values';

export const DAY_MS = 86_400_000;

/** The values of one member in one unit group, over a day or merged over many. */
export interface ValueGroup {
  /** Index into the schema's quantities' members. */
  member: number;
  /** A canonical UCUM unit the values were converted to, or a unit with no UCUM form as uploaded. */
  unit: string;
  /** Whether `unit` is a canonical UCUM unit (values converted), or raw text (values as uploaded). */
  converted: boolean;
  /**
   * The readings' specimen, where the member's coding in this unit depends on it (a glucose
   * sensor's `interstitial fluid`); absent otherwise, and in a group kept before groups kept it
   * (read as one of no specimen, until a rebuild recomputes the day).
   */
  specimen?: string;
  count: number;
  sum: number;
  /** Sum of squared deviations from the mean: the variance is `m2 / count`. */
  m2: number;
  min: number;
  max: number;
  /**
   * How many times each value occurs. Absent when the store could not keep it (a day of more
   * distinct values than its bound, see the adapter): quantiles then read that day's readings.
   */
  histogram?: Map<number, number>;
}

/** One member's values in one unit as uploaded, by UTC hour of the day: `[hour, least, greatest]`, hours ascending, only those with values. */
export interface HourBounds {
  member: number;
  /** The unit as the search sees it (the member's default when a reading names none). */
  unit: string;
  hours: Array<[hour: number, min: number, max: number]>;
}

/** A day's summary of a patient's readings of one code. */
export interface DaySummary {
  patientId: number;
  codeId: number;
  /** The UTC day, `yyyy-mm-dd`. */
  day: string;
  /** How many readings of the code the day held when it was computed: rows are only ever added, so more means later. */
  readings: number;
  groups: ValueGroup[];
  /**
   * Each member's values by hour, in `byBounds` order (none: the day's readings hold no values).
   * Absent from a summary kept before the bounds were (a rebuild adds them): a value search then
   * reads that day whole.
   */
  bounds?: HourBounds[];
  /**
   * The CGM digest of the day's sensor readings (an empty one when it holds none), for a code whose
   * readings may be a sensor's; `too-large` when the store could not keep it (past its bound: the
   * adapter says it), and absent for other codes and from a summary kept before digests were (a
   * period then reads that day's readings, until a rebuild writes the digest).
   */
  cgm?: CgmDayDigest | typeof DIGEST_NOT_KEPT;
  /**
   * The day's sensor readings per UTC hour (24 counts, each its hour's digest's count), beside
   * `cgm`; absent from a summary kept before hour digests were (a period then reads the readings
   * of that day's part it holds).
   */
  cgmHours?: number[];
}

/** The CGM digest of the sensor readings of one UTC hour (0-23) of a day summary's day, kept beside it. */
export interface HourDigest {
  hour: number;
  digest: CgmDigest;
}

/** What a summary holds in place of a digest the store could not keep. */
export const DIGEST_NOT_KEPT = 'too-large';

export const HOUR_MS = 3_600_000;

/** The UTC day (`yyyy-mm-dd`) of an instant. */
export const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** A UTC hour as its kept digest is named: `yyyy-mm-ddThh`, from its day and hour (0-23). */
export const hourKeyOf = (day: string, hour: number): string => `${day}T${String(hour).padStart(2, '0')}`;

/** The UTC hour (`hourKeyOf`) an instant falls in. */
export const hourKeyAt = (ms: number): string => hourKeyOf(dayOf(ms), new Date(ms).getUTCHours());

/** The first millisecond of a UTC day. */
export const dayStart = (day: string): number => Date.parse(`${day}T00:00:00.000Z`);

/** A value in its group's terms: converted to the canonical unit, or kept as uploaded with its unit. */
export function groupValue(value: number, unit: string): { unit: string; converted: boolean; value: number } {
  const ucum = ucumOf(unit);
  const canonical = ucum === undefined ? undefined : canonicalOf(ucum);
  return canonical ? { unit: canonical.canonical, converted: true, value: value * canonical.factor + canonical.offset } : { unit, converted: false, value };
}

/** What sets a group apart from the member's others. */
type GroupKind = Pick<ValueGroup, 'member' | 'unit' | 'converted' | 'specimen'>;

const groupKey = (g: GroupKind) => `${g.member}\u0000${g.converted ? 'c' : 'r'}\u0000${g.unit}\u0000${g.specimen ?? ''}`;

/** The group of these values (at least one), of readings of `specimen` where the coding follows it. */
export function groupOf(member: number, unit: string, converted: boolean, values: readonly number[], specimen?: string): ValueGroup {
  let min = Infinity;
  let max = -Infinity;
  const histogram = new Map<number, number>();
  for (const v of values) {
    if (v < min) min = v;
    if (v > max) max = v;
    histogram.set(v, (histogram.get(v) ?? 0) + 1);
  }
  return { member, unit, converted, ...(specimen === undefined ? {} : { specimen }), ...momentsOf(values), min, max, histogram };
}

/**
 * The value groups of readings (all of one code): each reading's lifted values, in their group's
 * terms; `members`, when given, keeps only those members (a coding naming one of them). The
 * specimen is read from the payload only for a schema whose codings follow one.
 */
export function valueGroups(readings: readonly StoredObservation[], schemaCode: string, members?: ReadonlySet<number>): ValueGroup[] {
  const quantities = schemaQuantities(schemaCode);
  const bySpecimen = quantities && followsSpecimen(quantities) ? quantities : undefined;
  const values = new Map<string, GroupKind & { values: number[] }>();
  for (const reading of readings) {
    if (reading.status === 'entered-in-error') continue;
    const specimen = bySpecimen && readingSpecimen(reading, bySpecimen);
    for (const lifted of readingValues(reading, schemaCode)) {
      if (members && !members.has(lifted.member)) continue;
      if (!Number.isFinite(lifted.value)) continue;
      const v = groupValue(lifted.value, lifted.unit);
      const kind: GroupKind = { member: lifted.member, unit: v.unit, converted: v.converted, specimen: bySpecimen && codedSpecimen(bySpecimen, lifted.member, v.unit, specimen) };
      const key = groupKey(kind);
      let group = values.get(key);
      if (!group) values.set(key, (group = { ...kind, values: [] }));
      group.values.push(v.value);
    }
  }
  return [...values.values()].map((g) => groupOf(g.member, g.unit, g.converted, g.values, g.specimen)).sort(byGroup);
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Groups in a stable order: by member, then unit, then specimen (none first). */
export function byGroup(a: ValueGroup, b: ValueGroup): number {
  return (
    a.member - b.member ||
    (a.converted === b.converted ? 0 : a.converted ? -1 : 1) ||
    byText(a.unit, b.unit) ||
    (a.specimen === b.specimen ? 0 : a.specimen === undefined ? -1 : b.specimen === undefined ? 1 : byText(a.specimen, b.specimen))
  );
}

/** A day's summary from every reading of the code that day. */
export function summariseDay(key: Pick<DaySummary, 'patientId' | 'codeId' | 'day'>, readings: readonly StoredObservation[], schemaCode: string): DaySummary {
  return summariseDayAndHours(key, readings, schemaCode).summary;
}

/** The day's summary and the digests of its hours that hold sensor readings (none for a code whose readings cannot be a sensor's). */
export function summariseDayAndHours(
  key: Pick<DaySummary, 'patientId' | 'codeId' | 'day'>,
  readings: readonly StoredObservation[],
  schemaCode: string,
): { summary: DaySummary; hours: HourDigest[] } {
  const start = dayStart(key.day);
  const summary: DaySummary = { ...key, readings: readings.length, groups: valueGroups(readings, schemaCode), bounds: hourBounds(readings, schemaCode, start) };
  if (!holdsSensorReadings(schemaCode)) return { summary, hours: [] };
  const sensor = sensorReadingsOf(readings, schemaCode);
  const byHour: CgmReading[][] = Array.from({ length: 24 }, () => []);
  for (const r of sensor) byHour[hourOfDay(r.at, start)]!.push(r);
  const hours = byHour.map((rs, hour) => ({ hour, digest: digestOf(rs) })).filter((h) => h.digest.count > 0);
  const cgmHours = byHour.map(() => 0);
  for (const h of hours) cgmHours[h.hour] = h.digest.count;
  return { summary: { ...summary, cgm: digestOf(sensor), cgmHours }, hours };
}

/** The hour of the day (0-23) an instant of it falls in. */
const hourOfDay = (ms: number, dayStartMs: number) => Math.min(23, Math.max(0, Math.floor((ms - dayStartMs) / HOUR_MS)));

/** Bounds in a stable order: by member, then unit. */
const byBounds = (a: HourBounds, b: HourBounds) => a.member - b.member || (a.unit < b.unit ? -1 : a.unit > b.unit ? 1 : 0);

/**
 * Each member's least and greatest value per hour of the day (from `start`), over every reading
 * (whatever its status) and in the unit as uploaded. A value that is not a number (none a payload
 * can hold) widens its hour to every number, so nothing it could match is skipped.
 */
export function hourBounds(readings: readonly StoredObservation[], schemaCode: string, start: number): HourBounds[] {
  const byMemberUnit = new Map<string, HourBounds>();
  for (const reading of readings) {
    if (!reading.effective) continue;
    const hour = hourOfDay(reading.effective.start, start);
    for (const { member, unit, value } of readingValues(reading, schemaCode)) {
      const key = `${member}\u0000${unit}`;
      let bounds = byMemberUnit.get(key);
      if (!bounds) byMemberUnit.set(key, (bounds = { member, unit, hours: [] }));
      const [lo, hi] = Number.isNaN(value) ? [-Infinity, Infinity] : [value, value];
      const at = bounds.hours.find((h) => h[0] === hour);
      if (at) {
        at[1] = Math.min(at[1], lo);
        at[2] = Math.max(at[2], hi);
      } else bounds.hours.push([hour, lo, hi]);
    }
  }
  const all = [...byMemberUnit.values()].sort(byBounds);
  for (const b of all) b.hours.sort((x, y) => x[0] - y[0]);
  return all;
}

/** Two groups of the same member, unit and specimen as one (Chan's merge of the spread); the histogram only when both have one. */
export function mergeGroup(a: ValueGroup, b: ValueGroup): ValueGroup {
  const merged: ValueGroup = {
    member: a.member,
    unit: a.unit,
    converted: a.converted,
    ...(a.specimen === undefined ? {} : { specimen: a.specimen }),
    ...mergeMoments(a, b),
    min: Math.min(a.min, b.min),
    max: Math.max(a.max, b.max),
  };
  if (a.histogram && b.histogram) {
    const histogram = new Map(a.histogram);
    for (const [value, n] of b.histogram) histogram.set(value, (histogram.get(value) ?? 0) + n);
    merged.histogram = histogram;
  }
  return merged;
}

/** Groups of many days (or edges) merged per member, unit and specimen, in `byGroup` order. */
export function mergeGroups(groups: Iterable<ValueGroup>): ValueGroup[] {
  const merged = new Map<string, ValueGroup>();
  for (const g of groups) {
    const key = groupKey(g);
    const seen = merged.get(key);
    merged.set(key, seen ? mergeGroup(seen, g) : g);
  }
  return [...merged.values()].sort(byGroup);
}

/** Whether two summaries say the same (the kept one is right). */
export function sameSummary(a: DaySummary, b: DaySummary): boolean {
  return a.readings === b.readings && a.groups.length === b.groups.length && a.groups.every((g, i) => sameGroup(g, b.groups[i]!)) && sameBounds(a.bounds, b.bounds) && sameDigest(a.cgm, b.cgm) && String(a.cgmHours) === String(b.cgmHours);
}

/** A digest the store could not keep is no difference (as a histogram); a missing one is (kept before digests were: a rebuild adds it). */
function sameDigest(a: DaySummary['cgm'], b: DaySummary['cgm']): boolean {
  if (a === DIGEST_NOT_KEPT || b === DIGEST_NOT_KEPT) return a !== undefined && b !== undefined;
  if (!a || !b) return a === b;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A summary without bounds (kept before them) differs from one with: a rebuild adds them. */
function sameBounds(a: readonly HourBounds[] | undefined, b: readonly HourBounds[] | undefined): boolean {
  if (!a || !b) return a === b;
  return (
    a.length === b.length &&
    a.every((x, i) => {
      const y = b[i]!;
      return x.member === y.member && x.unit === y.unit && x.hours.length === y.hours.length && x.hours.every((h, j) => h.every((n, k) => n === y.hours[j]![k]));
    })
  );
}

function sameGroup(a: ValueGroup, b: ValueGroup): boolean {
  // A group kept before groups kept the specimen differs from one with it: a rebuild adds it.
  const fields = ['member', 'unit', 'converted', 'specimen', 'count', 'sum', 'm2', 'min', 'max'] as const;
  if (fields.some((f) => a[f] !== b[f])) return false;
  // A histogram the store could not keep is no difference: the rest says the same readings.
  if (!a.histogram || !b.histogram) return true;
  return a.histogram.size === b.histogram.size && [...a.histogram].every(([v, n]) => b.histogram!.get(v) === n);
}
