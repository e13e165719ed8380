/**
 * The tools that summarise readings: statistics per type and per day or week, through `$stats`'
 * own domain function (`observationStats`, from the day summaries), and a per-type overview of a
 * patient's readings (count, first and last, the latest values, averages), made of the search's
 * count, its sorted first rows and `$stats`. The numbers are the FHIR API's, read back from the
 * `Parameters` it answers, so the tools and the API never disagree.
 */
import pMap from 'p-map';
import * as z from 'zod';
import type { Caller } from '../../auth/caller';
import { observationStats } from '../../observations/stats/operation';
import { MAX_PERIOD_MS, parseStatsRequest } from '../../observations/stats/params';
import { isStatistic, STATISTICS, STATISTICS_SYSTEM, type Statistic } from '../../observations/stats/statistics';
import { memberCodings, schemaQuantities } from '../../omh/quantities';
import { isObject } from '../../json';
import { readVisiblePatient, visiblePatient } from '../access';
import { countPosition, encodeToolCursor, toolCursorPosition } from '../cursor';
import { cursorField, fromField, optionalPatientIdField, pageSizeField, readingTypeField, toField } from '../fields';
import { countOf, periodParams } from '../readings';
import { resolveReadingType } from '../reading-types';
import { defineTool, ToolRefusal } from '../tool';
import { edgeReading, patientParams, readingCodes, slimReadingShape } from './readings';

/** Intervals of `reading_statistics` in one answer, at most; nextCursor continues. */
export const MAX_STATISTICS_INTERVALS = 60;
const DEFAULT_STATISTICS: readonly Statistic[] = ['count', 'minimum', 'maximum', 'average'];
/** Reading types summarised at once. */
const SUMMARY_CONCURRENCY = 4;

const STATISTIC_CODES = Object.keys(STATISTICS) as [Statistic, ...Statistic[]];

const statisticValueShape = z.object({
  member: z.string(),
  statistic: z.string(),
  value: z.number(),
  unit: z.string().optional().describe('Absent for a count'),
});
type StatisticValue = z.infer<typeof statisticValueShape>;

/** One interval of `$stats` read back: per statistics Observation (a member, in one unit group), its statistics. */
interface StatsInterval {
  start: string;
  end: string;
  observations: Array<{ member: string; values: StatisticValue[] }>;
}

type Coding = { system?: unknown; code?: unknown; display?: unknown };

/**
 * The member a statistics Observation is of, by its dotted path: the member whose coding its code
 * holds, else the code's principal member when its code holds the omh code's coding (a principal
 * member coded by its unit), else the first coding's display.
 */
function memberName(schemaCode: string, codings: readonly Coding[]): string {
  const quantities = schemaQuantities(schemaCode);
  const members = quantities?.members ?? [];
  const byCoding = members.find((m) => memberCodings(m).some((mc) => codings.some((c) => mc.code === c.code && mc.system === c.system)));
  if (byCoding) return byCoding.path;
  const principal = quantities?.principal === undefined ? undefined : members[quantities.principal];
  if (principal && codings.some((c) => c.code === schemaCode)) return principal.path;
  const first = codings[0];
  return typeof first?.display === 'string' ? first.display : String(first?.code);
}

/** A statistics component read back: the statistic its code names (R5's statistics code system) and its value. */
function statisticValue(member: string, component: Record<string, unknown>): StatisticValue[] {
  const codings = (component.code as { coding?: Coding[] } | undefined)?.coding ?? [];
  const statistic = codings.find((c) => c.system === STATISTICS_SYSTEM)?.code;
  const quantity = component.valueQuantity as { value?: unknown; unit?: unknown } | undefined;
  if (typeof statistic !== 'string' || typeof quantity?.value !== 'number') return [];
  return [{ member, statistic, value: quantity.value, ...(typeof quantity.unit === 'string' ? { unit: quantity.unit } : {}) }];
}

/**
 * `$stats` for one patient and type, read back into intervals: the request parsed by `$stats`' own
 * parser (one place for its limits and their messages), the answer its own function gives, read
 * as R5 defines it (one Observation per member and unit group, a component per statistic, coded by
 * the statistic). An interval's Observations follow one another; the intervals come in time order.
 */
async function statisticsOf(caller: Caller, patientId: number, schemaCode: string, period: { from: string; to: string }, statistics: readonly Statistic[], interval: 'day' | 'week' | undefined, now: number): Promise<StatsInterval[]> {
  const params = new URLSearchParams([
    ['subject', `Patient/${patientId}`],
    ['code', schemaCode],
    ['period', `${period.from}/${period.to}`],
    ['statistic', statistics.join(',')],
    ...(interval ? [['interval', interval] as [string, string]] : []),
  ]);
  const answer = await observationStats(caller, parseStatsRequest('GET', params, undefined, now));
  const parameters = (answer.parameters.parameter as Array<{ name: string; resource?: unknown }>).filter((p) => p.name === 'statistics');
  const intervals: StatsInterval[] = [];
  for (const { resource } of parameters) {
    const observation = resource as { effectivePeriod: { start: string; end: string }; code: { coding: Coding[] }; component?: unknown[] };
    const { start, end } = observation.effectivePeriod;
    const member = memberName(schemaCode, observation.code.coding);
    const values = (observation.component ?? []).filter(isObject).flatMap((component) => statisticValue(member, component));
    const last = intervals.at(-1);
    if (last && last.start === start && last.end === end) last.observations.push({ member, values });
    else intervals.push({ start, end, observations: [{ member, values }] });
  }
  return intervals;
}

const valuesOf = (i: StatsInterval): StatisticValue[] => i.observations.flatMap((o) => o.values);

/** A statistic as words: a count as readings ("12 readings"), any other as its name, value and unit ("average 72 beats/min"). */
function statisticText(v: StatisticValue): string {
  if (v.statistic === 'count') return `${v.value} ${v.value === 1 ? 'reading' : 'readings'}`;
  const name = isStatistic(v.statistic) ? STATISTICS[v.statistic].toLowerCase() : v.statistic;
  return `${name} ${v.value}${v.unit ? ` ${v.unit}` : ''}`;
}

/** An interval's statistics as one line: each member (in each unit group) with its statistics, apart by semicolons. */
function intervalText(i: StatsInterval): string {
  const members = i.observations.filter((o) => o.values.length > 0).map((o) => `${o.member}: ${o.values.map(statisticText).join(', ')}`);
  return `${i.start.slice(0, 10)}..${i.end.slice(0, 10)}: ${members.join('; ') || 'no readings'}`;
}

export const readingStatisticsTool = defineTool({
  name: 'reading_statistics',
  title: 'Statistics of readings',
  description: `Statistics of a patient's readings of one type over a period, for the whole period or per day or week (UTC; weeks from Monday): count, minimum, maximum, average by default, or any of ${STATISTIC_CODES.join(', ')}. Exact, from the stored day summaries. Days or weeks without readings are left out. At most ${MAX_STATISTICS_INTERVALS} intervals per answer; nextCursor continues.`,
  input: {
    patientId: optionalPatientIdField,
    readingType: readingTypeField,
    from: fromField.unwrap().describe('Start of the period, inclusive (a date such as 2025-06-01, or a dateTime with a time zone).'),
    to: toField.describe('End of the period, inclusive; now when left out.'),
    interval: z.enum(['day', 'week']).optional().describe('Per day or per week; the whole period when left out'),
    statistics: z.array(z.enum(STATISTIC_CODES)).min(1).max(STATISTIC_CODES.length).optional(),
    pageSize: pageSizeField(MAX_STATISTICS_INTERVALS, MAX_STATISTICS_INTERVALS),
    cursor: cursorField,
  },
  output: {
    patientId: z.number(),
    readingType: z.string(),
    intervals: z.array(z.object({ start: z.string(), end: z.string(), values: z.array(statisticValueShape) })),
    nextCursor: z.string().optional(),
  },
  reads: ['Observation'],
  async run(args, context) {
    const size = args.pageSize ?? MAX_STATISTICS_INTERVALS;
    const period = { from: args.from, to: args.to ?? new Date(context.now).toISOString() };
    const { patientId, result } = await readVisiblePatient(context.caller, args.patientId, async (id) => {
      const schema = resolveReadingType(args.readingType);
      const offset = countPosition(toolCursorPosition('reading_statistics', args, args.cursor), 0);
      return { schema, offset, all: await statisticsOf(context.caller, id, schema.code, period, args.statistics ?? DEFAULT_STATISTICS, args.interval, context.now) };
    });
    const { schema, offset, all } = result;
    if (offset > all.length) throw new ToolRefusal('The statistics changed since this cursor was given: leave cursor out to start again.');
    context.touched([patientId]);
    const intervals = all.slice(offset, offset + size);
    const more = offset + size < all.length ? { nextCursor: encodeToolCursor('reading_statistics', args, offset + size) } : {};
    return {
      structured: { patientId, readingType: schema.code, intervals: intervals.map((i) => ({ start: i.start, end: i.end, values: valuesOf(i) })), ...more },
      text: [`${schema.code} of patient ${patientId}:`, ...intervals.map(intervalText)].join('\n'),
    };
  },
});

const typeSummaryShape = z.object({
  type: z.string(),
  display: z.string(),
  count: z.number(),
  first: z.string().nullable(),
  last: z.string().nullable(),
  latest: slimReadingShape.nullable(),
  averages: z.array(z.object({ member: z.string(), value: z.number(), unit: z.string() })).describe('Over the period asked, or the type\'s whole history (its first to its last reading, at most twenty years back)'),
});

export const summarizePatientReadingsTool = defineTool({
  name: 'summarize_patient_readings',
  title: "Summarise a patient's readings",
  description:
    "An overview of a patient's readings, per type that has any: how many, the first and last dates, the latest reading's values, and the average of each value, over a period if given, else over each type's whole history. The way to start answering a question about a patient's data.",
  input: { patientId: optionalPatientIdField, from: fromField, to: toField },
  output: { patientId: z.number(), types: z.array(typeSummaryShape) },
  reads: ['Observation'],
  async run(args, context) {
    const { caller, now } = context;
    const patient = await visiblePatient(caller, args.patientId);
    const codes = await readingCodes();
    const summaries = await pMap(
      codes,
      async (code) => {
        const params = patientParams(patient.id, code.code, args.from, args.to);
        const count = await countOf(caller, params, now);
        if (count === 0) return undefined;
        const [first, last] = await Promise.all([edgeReading(context, params, 'date'), edgeReading(context, params, '-date')]);
        const averages = first && last && schemaQuantities(code.code)?.members.length ? await averagesOf(caller, patient.id, code.code, args, first.start!, last.start!, now) : [];
        return { type: code.code, display: code.display, count, first: first?.start ?? null, last: last?.start ?? null, latest: last ?? null, averages };
      },
      { concurrency: SUMMARY_CONCURRENCY },
    );
    context.touched([patient.id]);
    const types = summaries.filter((s) => s !== undefined);
    const line = (t: (typeof types)[number]) =>
      `- ${t.type}: ${t.count} readings${t.first ? ` from ${t.first} to ${t.last}` : ''}${t.averages.length ? `; average ${t.averages.map((a) => `${a.member} ${a.value} ${a.unit}`).join(', ')}` : ''}`;
    return { structured: { patientId: patient.id, types }, text: [`Readings of patient ${patient.id}${periodParams(args.from, args.to).length ? ' in the period' : ''}:`, ...types.map(line)].join('\n') || 'No readings.' };
  },
});

/** Each value's average over the period asked, else from the first to the last reading (at most twenty years). */
async function averagesOf(caller: Caller, patientId: number, schemaCode: string, asked: { from?: string; to?: string }, first: string, last: string, now: number) {
  const to = asked.to ?? last;
  const earliest = new Date(Date.parse(last) - MAX_PERIOD_MS + 86_400_000).toISOString();
  const from = asked.from ?? (Date.parse(last) - Date.parse(first) >= MAX_PERIOD_MS - 86_400_000 ? earliest : first);
  const [whole] = await statisticsOf(caller, patientId, schemaCode, { from, to }, ['average'], undefined, now);
  return (whole ? valuesOf(whole) : []).map(({ member, value, unit }) => ({ member, value, unit: unit ?? '' }));
}
