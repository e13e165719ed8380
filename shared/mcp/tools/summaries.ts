/**
 * The tools that summarise readings: statistics per type and per day or week, through `$stats`'
 * own typed function (`readingStatistics`, from the day summaries), and a per-type overview of a
 * patient's readings (count, first and last, the latest values, averages), made of the series'
 * count, its first and last rows and `$stats`, all over the same readings of the period
 * (shared/observations/period.ts). The numbers are the typed results the FHIR API renders, so the
 * tools and the API never disagree.
 */
import pMap from 'p-map';
import * as z from 'zod';
import type { Caller } from '../../auth/caller';
import { isBounded, periodOfDates, type BoundedPeriod, type ReadingPeriod } from '../../observations/period';
import { countReadingsByCode, type SeriesQuery } from '../../observations/series';
import { DAY_MS } from '../../observations/stats/day-summary';
import { unitText } from '../../observations/stats/display';
import { readingStatistics } from '../../observations/stats/operation';
import { MAX_PERIOD_MS } from '../../observations/stats/params';
import type { SpanStatistics, StatisticsResult } from '../../observations/stats/result';
import { isStatistic, scalingOf, STATISTICS, type Statistic } from '../../observations/stats/statistics';
import { schemaQuantities } from '../../omh/quantities';
import { readVisiblePatient, visiblePatient } from '../access';
import { countPosition, encodeToolCursor, toolCursorPosition } from '../cursor';
import { cursorField, fromField, optionalPatientIdField, pageSizeField, readingTypeField, toField } from '../fields';
import { edgeReading } from '../readings';
import { resolveReadingType } from '../reading-types';
import { defineTool, ToolRefusal } from '../tool';
import { readingCodes, slimReadingShape } from './readings';

/** Intervals of `reading_statistics` in one answer, at most; nextCursor continues. */
export const MAX_STATISTICS_INTERVALS = 60;
const DEFAULT_STATISTICS: readonly Statistic[] = ['count', 'minimum', 'maximum', 'average'];
/** Reading types summarised at once. */
const SUMMARY_CONCURRENCY = 4;

const STATISTIC_CODES = Object.keys(STATISTICS) as [Statistic, ...Statistic[]];

const statisticValueShape = z.object({
  member: z.string(),
  specimen: z.string().optional().describe("The readings' specimen, where the type's values are told apart by it (a blood glucose's capillary blood or interstitial fluid)"),
  statistic: z.string(),
  value: z.number(),
  unit: z.string().optional().describe('Absent for a count'),
});
type StatisticValue = z.infer<typeof statisticValueShape>;

/** One interval of the statistics: per member (in one value group), its statistics. */
interface StatsInterval {
  start: string;
  end: string;
  observations: Array<{ member: string; specimen: string | undefined; values: StatisticValue[] }>;
}

/** A span of the typed result as the tool shows it: each group named by its member's dotted path (and specimen), each value with its unit's text. */
function intervalOf(code: StatisticsResult['codes'][number], span: SpanStatistics): StatsInterval {
  const members = code.quantities?.members ?? [];
  const observations = span.groups.map((g) => {
    const member = g.member === undefined ? code.code.display : (members[g.member]?.path ?? `member ${g.member}`);
    const specimen = g.group?.specimen;
    const values = g.values.map(({ statistic, value }) => {
      const unit = unitText(scalingOf(statistic), g.unit);
      return { member, ...(specimen === undefined ? {} : { specimen }), statistic, value, ...(unit === undefined ? {} : { unit }) };
    });
    return { member, specimen, values };
  });
  return { start: new Date(span.from).toISOString(), end: new Date(span.to).toISOString(), observations };
}

/**
 * `$stats` for one patient and type through its own typed function (its limits and their messages
 * the API's), its spans in time order.
 */
async function statisticsOf(caller: Caller, patientId: number, schemaCode: string, period: BoundedPeriod, statistics: readonly Statistic[], interval: 'day' | 'week' | undefined): Promise<StatsInterval[]> {
  const result = await readingStatistics(caller, {
    subject: `Patient/${patientId}`,
    codings: [{ code: schemaCode }],
    period,
    statistics,
    ...(interval ? { interval } : {}),
  });
  return result.codes.flatMap((code) => code.spans.map((span) => intervalOf(code, span)));
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
  const members = i.observations.filter((o) => o.values.length > 0).map((o) => `${o.member}${o.specimen ? ` in ${o.specimen}` : ''}: ${o.values.map(statisticText).join(', ')}`);
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
    const { patientId, result } = await readVisiblePatient(context.caller, args.patientId, async (id) => {
      const asked = periodOfDates(args.from, args.to);
      // Without `to`, up to now (its millisecond included).
      const period = { from: asked.from!, to: asked.to ?? context.now + 1 };
      const schema = resolveReadingType(args.readingType);
      const offset = countPosition(toolCursorPosition('reading_statistics', args, args.cursor), 0);
      return { schema, offset, all: await statisticsOf(context.caller, id, schema.code, period, args.statistics ?? DEFAULT_STATISTICS, args.interval) };
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
    const period = periodOfDates(args.from, args.to);
    const codes = await readingCodes();
    const counts = await countReadingsByCode(caller, { subject: { patientId: patient.id }, codes: codes.map((c) => c.code), period }, now);
    const summaries = await pMap(
      codes,
      async (code, i) => {
        const count = counts[i]!;
        if (count === 0) return undefined;
        const query: SeriesQuery = { subject: { patientId: patient.id }, codes: [code.code], period };
        const [first, last] = await Promise.all([edgeReading(caller, query, 'oldest', now), edgeReading(caller, query, 'newest', now)]);
        const averages = first && last && schemaQuantities(code.code)?.members.length ? await averagesOf(caller, patient.id, code.code, period, Date.parse(first.start!), Date.parse(last.start!)) : [];
        return { type: code.code, display: code.display, count, first: first?.start ?? null, last: last?.start ?? null, latest: last ?? null, averages };
      },
      { concurrency: SUMMARY_CONCURRENCY },
    );
    context.touched([patient.id]);
    const types = summaries.filter((s) => s !== undefined);
    const line = (t: (typeof types)[number]) =>
      `- ${t.type}: ${t.count} readings${t.first ? ` from ${t.first} to ${t.last}` : ''}${t.averages.length ? `; average ${t.averages.map((a) => `${a.member} ${a.value} ${a.unit}`).join(', ')}` : ''}`;
    return { structured: { patientId: patient.id, types }, text: [`Readings of patient ${patient.id}${isBounded(period) ? ' in the period' : ''}:`, ...types.map(line)].join('\n') || 'No readings.' };
  },
});

/** Each value's average over the period asked, else from the first to the last reading's start (at most twenty years). */
async function averagesOf(caller: Caller, patientId: number, schemaCode: string, asked: ReadingPeriod, first: number, last: number) {
  const to = asked.to ?? last + 1;
  const from = asked.from ?? Math.max(first, last - MAX_PERIOD_MS + DAY_MS);
  const [whole] = await statisticsOf(caller, patientId, schemaCode, { from, to }, ['average'], undefined);
  return (whole ? valuesOf(whole) : []).map(({ member, value, unit }) => ({ member, value, unit: unit ?? '' }));
}
