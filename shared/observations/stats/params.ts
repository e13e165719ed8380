/**
 * The parameters of `Observation/$stats` (R5's OperationDefinition Observation-stats, and the
 * `interval` extension), parsed once into typed values from the query string of a GET or the
 * Parameters body of a POST (docs/api.md#statistics-observationstats). Any problem is a 400 naming the
 * parameter. Codes are resolved against the code table (`targets.ts`), the subject's access by
 * the caller's scope (`operation.ts`).
 */
import { operationParameters, type OperationParameter } from '../../fhir/parameters';
import { invalidQuery } from '../../failures';
import { MAX_TIME, MIN_TIME, periodRange } from '../../fhir/search/dates';
import { badRequest } from '../../http/errors';
import type { BoundedPeriod } from '../period';
import { inCodeSystemOrder, isStatistic, NOT_COMPUTED, STATISTICS, type Statistic } from './statistics';

const HOUR_MS = 3_600_000;
/** The longest period asked at once (twenty years). */
export const MAX_PERIOD_MS = 20 * 366 * 24 * HOUR_MS;
/** Hourly statistics read every row of the period: at most this long a period. */
export const MAX_HOURLY_MS = 31 * 24 * HOUR_MS;
/** Source readings returned with `include` when no `limit` is given, and at most. */
export const DEFAULT_SOURCE_LIMIT = 100;
export const MAX_SOURCE_LIMIT = 1000;

/** `interval`: statistics per UTC hour, day or ISO week. */
export type Interval = 'hour' | 'day' | 'week';

/** A code as asked: `code` (with `system` or none) or `coding` (`system|code`). */
export interface AskedCoding {
  system?: string;
  code: string;
}

/** A `$stats` request in typed values: what the FHIR operation parses, and what the assistants' tools give directly. */
export interface StatsRequest {
  /** `Patient/<id>` (or `<id>`), as asked. */
  subject: string;
  codings: AskedCoding[];
  /** The readings of this period (`../period.ts`: their effective start within it). */
  period: BoundedPeriod;
  statistics: readonly Statistic[];
  interval?: Interval;
  /** `include`: how many source readings at most; absent when not asked. */
  sources?: number;
}

const NAMES: ReadonlySet<string> = new Set(['subject', 'code', 'system', 'coding', 'duration', 'period', 'statistic', 'include', 'limit', 'interval']);
const INTERVALS: ReadonlySet<string> = new Set(['hour', 'day', 'week']);
const STEPS: ReadonlyMap<string, number> = new Map([['hour', HOUR_MS], ['day', 24 * HOUR_MS], ['week', 7 * 24 * HOUR_MS]]);
/** Intervals a request answers at most (per code): 31 days of hours, three years of days. */
export const MAX_INTERVALS = 1100;

const splitList = (text: string) => text.split(',').map((v) => v.trim()).filter((v) => v.length > 0);

/** A parameter's value as text: a query value, or a body's primitive `value[x]` (a reference's `reference`). */
function textOf(p: OperationParameter): string {
  if (typeof p.value === 'string') return p.value;
  if (typeof p.value === 'number' || typeof p.value === 'boolean') return String(p.value);
  if (p.type === 'valueReference' && typeof (p.value as { reference?: unknown } | null)?.reference === 'string') return (p.value as { reference: string }).reference;
  throw badRequest(`Parameter ${p.name} needs a primitive value, not ${p.type}.`).at(p.at);
}

function codingOf(p: OperationParameter): AskedCoding {
  if (p.type === 'valueCoding') {
    const { system, code } = (p.value ?? {}) as { system?: unknown; code?: unknown };
    if (typeof code !== 'string' || (system !== undefined && typeof system !== 'string')) throw badRequest('coding needs a code (and a system).').at(p.at);
    return system === undefined ? { code } : { system, code };
  }
  const text = textOf(p);
  const bar = text.indexOf('|');
  if (bar < 0) return { code: text.trim() };
  return { system: text.slice(0, bar).trim(), code: text.slice(bar + 1).trim() };
}

function periodOf(p: OperationParameter): BoundedPeriod {
  let start: unknown;
  let end: unknown;
  if (p.type === 'valuePeriod') ({ start, end } = (p.value ?? {}) as { start?: unknown; end?: unknown });
  else [start, end] = textOf(p).split('/');
  const range = typeof start === 'string' && typeof end === 'string' ? periodRange(start.trim(), end.trim()) : undefined;
  if (!range || range.lo <= MIN_TIME || range.hi >= MAX_TIME) {
    throw badRequest('period needs a start and an end, as FHIR dates or dateTimes (GET: period=2025-01-01/2025-12-31; POST: valuePeriod).').at(p.at);
  }
  return { from: range.lo, to: range.hi };
}

/** A period `$stats` may summarise: at most twenty years (an `invalid-query` failure otherwise). */
function checkPeriodLength(period: BoundedPeriod): void {
  if (period.to - period.from > MAX_PERIOD_MS) throw invalidQuery('A period of $stats spans at most twenty years.', 'period');
}

/** Intervals `$stats` answers at once: hours over at most 31 days, at most `MAX_INTERVALS` of any. */
function checkIntervals(period: BoundedPeriod, interval: Interval | undefined): void {
  if (interval === 'hour' && period.to - period.from > MAX_HOURLY_MS) {
    throw invalidQuery('Hourly statistics are read from every reading of the period: ask for at most 31 days with interval=hour, or use interval=day.', 'interval');
  }
  const step = interval === undefined ? undefined : STEPS.get(interval);
  if (step !== undefined && (period.to - period.from) / step > MAX_INTERVALS) {
    throw invalidQuery(`At most ${MAX_INTERVALS} intervals a request: ask for a shorter period or a longer interval.`, 'interval');
  }
}

/** The limits of a typed request, however it was made (the FHIR operation checks them as it parses, in the order of its parameters). */
export function checkStatsLimits(request: Pick<StatsRequest, 'period' | 'interval'>): void {
  checkPeriodLength(request.period);
  checkIntervals(request.period, request.interval);
}

export function parseStatsRequest(method: string, query: URLSearchParams, body: unknown, now = Date.now()): StatsRequest {
  const byName = new Map<string, OperationParameter[]>();
  for (const p of operationParameters(method, query, body, 'A POST of $stats')) {
    if (!NAMES.has(p.name)) throw badRequest(`The parameter ${p.name} is not a parameter of $stats (it takes ${[...NAMES].join(', ')}).`, 'not-supported').at(p.at);
    byName.set(p.name, [...(byName.get(p.name) ?? []), p]);
  }
  const once = (name: string): OperationParameter | undefined => {
    const values = byName.get(name) ?? [];
    if (values.length > 1) throw badRequest(`Give ${name} once.`).at(name);
    return values[0];
  };

  const subject = once('subject');
  if (!subject) throw badRequest('subject is required: the patient whose readings to summarise (Patient/<id>).', 'required').at('subject');

  const system = once('system');
  const systemText = system && textOf(system).trim();
  const codes = (byName.get('code') ?? []).flatMap((p) => splitList(textOf(p)).map((code): AskedCoding => (systemText ? { system: systemText, code } : { code })));
  if (systemText && codes.length === 0) throw badRequest('system is given with code.').at('system');
  const codings = [...codes, ...(byName.get('coding') ?? []).flatMap((p) => (p.type === 'query' ? splitList(textOf(p)).map((text) => codingOf({ ...p, value: text })) : [codingOf(p)]))];
  if (codings.length === 0) throw badRequest('Name the readings to summarise: code (with system) or coding, e.g. code=omh:heart-rate:2.0 or coding=http://loinc.org|8867-4.', 'required').at('code');

  const duration = once('duration');
  const periodParameter = once('period');
  if (duration && periodParameter) throw badRequest('Give duration or period, not both.').at('duration');
  let period: BoundedPeriod;
  if (duration) {
    const text = textOf(duration).trim();
    const hours = /^\d+(\.\d+)?$/.test(text) ? Number(text) : NaN;
    if (!(hours > 0) || hours * HOUR_MS > MAX_PERIOD_MS) throw badRequest(`duration is a number of hours back from now, above 0 and at most ${MAX_PERIOD_MS / HOUR_MS}.`).at(duration.at);
    period = { from: Math.round(now - hours * HOUR_MS), to: now + 1 };
  } else if (periodParameter) {
    period = periodOf(periodParameter);
  } else {
    throw badRequest('Give the time to summarise: duration (hours back from now) or period (a start and an end).', 'required').at('period');
  }
  checkPeriodLength(period);

  const statistics: Statistic[] = [];
  for (const p of byName.get('statistic') ?? []) {
    for (const code of splitList(textOf(p))) {
      if (NOT_COMPUTED.has(code)) throw badRequest(`The statistic ${code} is not computed here (computed: ${Object.keys(STATISTICS).join(', ')}).`, 'not-supported').at(p.at);
      if (!isStatistic(code)) throw badRequest(`Unknown statistic ${code}: use codes of http://hl7.org/fhir/observation-statistics (${Object.keys(STATISTICS).join(', ')}).`).at(p.at);
      if (!statistics.includes(code)) statistics.push(code);
    }
  }
  if (statistics.length === 0) throw badRequest(`statistic is required (one or more of ${Object.keys(STATISTICS).join(', ')}).`, 'required').at('statistic');

  const intervalParameter = once('interval');
  const interval = intervalParameter && textOf(intervalParameter).trim();
  if (interval !== undefined && !INTERVALS.has(interval)) throw badRequest('interval is hour, day or week.').at('interval');
  checkIntervals(period, interval as Interval | undefined);

  const include = once('include');
  const includeText = include && textOf(include).trim();
  if (includeText !== undefined && includeText !== 'true' && includeText !== 'false') throw badRequest('include is true or false.').at('include');
  const limit = once('limit');
  const limitText = limit && textOf(limit).trim();
  const sources = limitText === undefined ? DEFAULT_SOURCE_LIMIT : /^[1-9]\d{0,5}$/.test(limitText) ? Number(limitText) : NaN;
  if (includeText === 'true' && !(sources >= 1 && sources <= MAX_SOURCE_LIMIT)) throw badRequest(`limit is a whole number from 1 to ${MAX_SOURCE_LIMIT}.`).at('limit');

  return {
    subject: textOf(subject).trim(),
    codings,
    period,
    statistics: inCodeSystemOrder(statistics),
    ...(interval ? { interval: interval as Interval } : {}),
    ...(includeText === 'true' ? { sources } : {}),
  };
}
