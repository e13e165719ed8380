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
import { STATISTICS, type Statistic } from '../../observations/stats/statistics';
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

const statisticValueShape = z.object({ member: z.string(), statistic: z.string(), value: z.number(), unit: z.string() });

interface StatsInterval {
  start: string;
  end: string;
  values: Array<z.infer<typeof statisticValueShape>>;
}

/** A value's name in a statistic: its member's dotted path when the coding is a member's, else the coding's display. */
function memberName(schemaCode: string, coding: { system?: unknown; code?: unknown; display?: unknown }): string {
  const member = schemaQuantities(schemaCode)?.members.find((m) => memberCodings(m).some((c) => c.code === coding.code && c.system === coding.system));
  return member?.path ?? (typeof coding.display === 'string' ? coding.display : String(coding.code));
}

/**
 * `$stats` for one patient and type, read back into intervals: the request parsed by `$stats`' own
 * parser (one place for its limits and their messages), the answer its own function gives.
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
  return parameters.map(({ resource }) => {
    const observation = resource as { effectivePeriod: { start: string; end: string }; component: unknown[] };
    return {
      start: observation.effectivePeriod.start,
      end: observation.effectivePeriod.end,
      values: observation.component.filter(isObject).map((component) => {
        const statistic = (component.extension as Array<{ valueCoding: { code: string } }>)[0]!.valueCoding.code;
        const coding = ((component.code as { coding: unknown[] }).coding[0] ?? {}) as Record<string, unknown>;
        const quantity = component.valueQuantity as { value: number; unit: string };
        return { member: memberName(schemaCode, coding), statistic, value: quantity.value, unit: quantity.unit };
      }),
    };
  });
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
    const line = (i: StatsInterval) => `${i.start.slice(0, 10)}..${i.end.slice(0, 10)}: ${i.values.map((v) => `${v.member} ${v.statistic} ${v.value} ${v.unit}`).join(', ') || 'no readings'}`;
    return {
      structured: { patientId, readingType: schema.code, intervals, ...more },
      text: [`${schema.code} of patient ${patientId}:`, ...intervals.map(line)].join('\n'),
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
  return (whole?.values ?? []).map(({ member, value, unit }) => ({ member, value, unit }));
}
