/**
 * The day summaries in the observations table, in the patient's partition beside the readings:
 * `pk = P#<patientId>`, `sk = #DAY#<codeId, zero-padded>#<yyyy-mm-dd>`, so the days of a code are
 * one key-condition Query in day order (strongly consistent, as every read of this table). The
 * item carries no index attribute, so it lands in no index: a summary costs its own size only.
 *
 * Compact text: `readings` (a number), `g` (one text per value group:
 * `<member>;<c|r>;<unit, percent-encoded>;<count>;<sum>;<m2>;<min>;<max>[;<specimen, percent-encoded>]`,
 * numbers as JavaScript's shortest exact text; the specimen only for a group that has one, and
 * absent from a group kept before groups kept it) and `h` (the groups' histograms in the same order: `<value>[*<times>],...`,
 * values ascending). A day of minute heart rates (about 100 distinct values) is under 1 KB.
 * `v`: the value bounds by hour (one text per member and unit as uploaded:
 * `<member>;<unit, percent-encoded>;<hour>:<min>[:<max>],...`, the max left out when it is the
 * min), about 250 characters for a day of minute heart rates; an empty list when the day holds no
 * values, absent from an item kept before the bounds were (or from a summary given without them).
 *
 * `c` and `p`: the day's CGM digest of a code whose readings may be a glucose sensor's, as JSON: its
 * figures in `c` (about 200 characters) and its profile in `p` (about 3 KB for a day of 288
 * readings), so a study's table reads the figures alone; `c` is an empty text (and `p` absent) when
 * the digest was past its bound. An item kept before the two were apart holds the whole digest in
 * `c` (and no `p`): both reads take it as it is.
 *
 * `ch`: the day's sensor readings per UTC hour (`DaySummary.cgmHours`), 24 counts joined by commas.
 * Each hour with sensor readings keeps its digest in an item of its own, `sk = #DAYH#<codeId,
 * zero-padded>#<yyyy-mm-ddThh>` (after every day item of the patient: `H` sorts after `#`), with `n`
 * (its readings) and `c`, `p` as a day's: a period's partial days read their whole hours from these
 * (one BatchGetItem of the hours of both edges), and the count in `ch` tells whether an hour's item is the one
 * the day's summary was computed with.
 *
 * Bounds: an item holds at most HISTOGRAM_BUDGET characters of histograms and DIGEST_BUDGET of
 * digest (together far below DynamoDB's 400 KB item limit, and a year's Query stays small); past the
 * first the largest histograms are left out (an empty text), and a quantile over that day reads the
 * day's readings instead; past the second the digest is left out, and a CGM period reads that day's
 * readings instead. Every day of up to 1,440 sensor readings (one a minute) keeps its digest.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import pMap from 'p-map';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, batchWriteAll } from '../../store/batch';
import { dynamo } from '../../store/clients';
import { pad } from '../../store/directory-keys';
import { queryAll } from '../../store/reads';
import { retryWhileBusy } from '../../store/retry';
import { DIGEST_VERSION, figuresOf, type CgmDayDigest, type CgmDigest, type CgmFigures } from '../../cgm/digest';
import { DIGEST_NOT_KEPT, hourKeyOf, type DaySummary, type HourBounds, type HourDigest, type ValueGroup } from '../stats/day-summary';
import { observationKeys } from './dynamo-keys';
import { table } from './dynamo-table';
import type { DayBounds, DayDigest, DayFigures, KeepRule, KeptHour, SummaryStore } from './summary-port';

/** Characters of histogram text an item keeps at most. */
export const HISTOGRAM_BUDGET = 64_000;

/**
 * Characters of CGM digest JSON an item keeps at most. A digest's largest parts grow with the day's
 * readings (a time-of-day bin and whole mg/dL value each, a gap length each): a day of 1,440
 * readings with no two values alike and as many different gaps as a day has room for is about
 * 21,000 characters (test/contract/summary-store.ts builds one), so every day of minute readings fits.
 */
export const DIGEST_BUDGET = 48_000;

/** The sort keys of a patient's day summaries begin with this. */
export const DAYS = '#DAY#';
const codeDays = (codeId: number) => `${DAYS}${pad(codeId)}#`;
const summaryKey = (patientId: number, codeId: number, day: string) => ({ pk: observationKeys.patientPk(patientId), sk: `${codeDays(codeId)}${day}` });
/** The sort keys of a patient's hour digests begin with this. */
const HOURS = '#DAYH#';
/** What both the days' and the hours' sort keys begin with: every item this store keeps in a patient's partition. */
export const SUMMARY_ITEMS = '#DAY';
const codeHours = (codeId: number) => `${HOURS}${pad(codeId)}#`;

function histogramText(histogram: ReadonlyMap<number, number>): string {
  return [...histogram.keys()]
    .sort((a, b) => a - b)
    .map((v) => {
      const n = histogram.get(v)!;
      return n === 1 ? String(v) : `${v}*${n}`;
    })
    .join(',');
}

function histogramOf(text: string): Map<number, number> {
  const histogram = new Map<number, number>();
  for (const entry of text.split(',')) {
    const star = entry.indexOf('*');
    histogram.set(Number(star < 0 ? entry : entry.slice(0, star)), star < 0 ? 1 : Number(entry.slice(star + 1)));
  }
  return histogram;
}

/** The histograms' texts an item keeps: the largest left out (empty) until the rest fit the budget. */
function keptHistogramTexts(groups: readonly ValueGroup[]): string[] {
  const texts = groups.map((g) => (g.histogram && g.histogram.size > 0 ? histogramText(g.histogram) : ''));
  let total = texts.reduce((n, t) => n + t.length, 0);
  const largestFirst = texts.map((t, i) => i).sort((a, b) => texts[b]!.length - texts[a]!.length);
  for (const i of largestFirst) {
    if (total <= HISTOGRAM_BUDGET) break;
    total -= texts[i]!.length;
    texts[i] = '';
  }
  return texts;
}

/** The digest's texts an item keeps: its figures (`c`) and profile (`p`) as JSON, or an empty `c` past the bound. */
function digestTexts(digest: NonNullable<DaySummary['cgm']>): { c: string; p?: string } {
  if (digest === DIGEST_NOT_KEPT) return { c: '' };
  const c = JSON.stringify(figuresOf(digest));
  const p = JSON.stringify(digest.profile);
  return c.length + p.length <= DIGEST_BUDGET ? { c, p } : { c: '' };
}

/** Kept figures as the domain reads them: one of another version is no digest (recomputed from the readings). */
function keptFigures(c: string): CgmFigures | typeof DIGEST_NOT_KEPT | undefined {
  if (c === '') return DIGEST_NOT_KEPT;
  const figures = JSON.parse(c) as CgmFigures;
  return figures.version === DIGEST_VERSION ? figures : undefined;
}

/** A kept digest as the domain reads it: the figures with the profile beside them (or inside, as kept before they were apart). */
function digestOf(c: string, p: unknown): CgmDayDigest | typeof DIGEST_NOT_KEPT | undefined {
  const figures = keptFigures(c);
  if (typeof figures !== 'object' || 'profile' in figures) return figures as CgmDayDigest | typeof DIGEST_NOT_KEPT | undefined;
  return typeof p === 'string' ? { ...figures, profile: JSON.parse(p) as CgmDayDigest['profile'] } : undefined;
}

/** An hour's digest as the table keeps it, or undefined past the bound (not kept). */
export function keptHourDigest(digest: CgmDigest): CgmDigest | undefined {
  const kept = keptDigest(digest);
  return typeof kept === 'object' ? kept : undefined;
}

const figuresOfItem = (c: string): CgmFigures | typeof DIGEST_NOT_KEPT | undefined => {
  const figures = keptFigures(c);
  return typeof figures === 'object' ? figuresOf(figures) : figures;
};

function keptDigest(digest: NonNullable<DaySummary['cgm']>): DaySummary['cgm'] {
  const { c, p } = digestTexts(digest);
  return digestOf(c, p);
}

/** A summary as the table keeps it: histograms and a digest past their bounds left out (what the twin keeps too). */
export function asKept(summary: DaySummary): DaySummary {
  const texts = keptHistogramTexts(summary.groups);
  return {
    ...summary,
    ...(summary.cgm === undefined ? {} : { cgm: keptDigest(summary.cgm) }),
    groups: summary.groups.map((g, i) => {
      const { histogram: _histogram, ...figures } = g;
      return texts[i] ? { ...figures, histogram: new Map(g.histogram) } : figures;
    }),
  };
}

const groupText = (g: ValueGroup) =>
  [g.member, g.converted ? 'c' : 'r', encodeURIComponent(g.unit), g.count, g.sum, g.m2, g.min, g.max, ...(g.specimen === undefined ? [] : [encodeURIComponent(g.specimen)])].join(';');

function groupOf(text: string, histogram: string | undefined): ValueGroup {
  const [member, converted, unit, count, sum, m2, min, max, specimen] = text.split(';');
  return {
    member: Number(member),
    unit: decodeURIComponent(unit!),
    converted: converted === 'c',
    ...(specimen === undefined ? {} : { specimen: decodeURIComponent(specimen) }),
    count: Number(count),
    sum: Number(sum),
    m2: Number(m2),
    min: Number(min),
    max: Number(max),
    ...(histogram ? { histogram: histogramOf(histogram) } : {}),
  };
}

const boundsText = (b: HourBounds) => `${b.member};${encodeURIComponent(b.unit)};${b.hours.map(([hour, min, max]) => (min === max ? `${hour}:${min}` : `${hour}:${min}:${max}`)).join(',')}`;

function boundsOf(text: string): HourBounds {
  const [member, unit, hours] = text.split(';');
  return {
    member: Number(member),
    unit: decodeURIComponent(unit!),
    hours: hours!.split(',').map((entry) => {
      const [hour, min, max] = entry.split(':').map(Number);
      return [hour!, min!, max ?? min!];
    }),
  };
}

/** The code and day a summary item is of. */
export const keysOf = (item: Record<string, unknown>): { codeId: number; day: string } => {
  const [codeId, day] = String(item.sk).slice(DAYS.length).split('#');
  return { codeId: Number(codeId), day: day! };
};

function fromItem(item: Record<string, unknown>, patientId: number): DaySummary {
  const histograms = item.h as string[] | undefined;
  const bounds = item.v as string[] | undefined;
  const cgm = typeof item.c === 'string' ? digestOf(item.c, item.p) : undefined;
  const cgmHours = hourCountsOf(item);
  return {
    patientId,
    ...keysOf(item),
    readings: Number(item.readings),
    groups: ((item.g as string[] | undefined) ?? []).map((g, i) => groupOf(g, histograms?.[i])),
    ...(bounds ? { bounds: bounds.map(boundsOf) } : {}),
    ...(cgm ? { cgm } : {}),
    ...(cgmHours ? { cgmHours } : {}),
  };
}

const hourCountsOf = (item: Record<string, unknown>): number[] | undefined => (typeof item.ch === 'string' ? item.ch.split(',').map(Number) : undefined);

const CONDITIONS: Record<KeepRule, string> = {
  'from-more-readings': 'attribute_not_exists(readings) OR readings < :readings',
  repair: 'attribute_not_exists(readings) OR readings <= :readings',
};

async function keep(summary: DaySummary, rule: KeepRule, hours: readonly HourDigest[] = []): Promise<boolean> {
  // The hours first: a day's counts never name an hour before its digest is there to be read.
  await pMap(hours, (h) => keepHour(summary, h, rule), { concurrency: 4 });
  const item = {
    ...summaryKey(summary.patientId, summary.codeId, summary.day),
    readings: summary.readings,
    g: summary.groups.map(groupText),
    h: keptHistogramTexts(summary.groups),
    ...(summary.bounds ? { v: summary.bounds.map(boundsText) } : {}),
    ...(summary.cgm ? digestTexts(summary.cgm) : {}),
    ...(summary.cgmHours ? { ch: summary.cgmHours.join(',') } : {}),
  };
  return conditionalPut(item, CONDITIONS[rule], summary.readings);
}

const HOUR_CONDITIONS: Record<KeepRule, string> = {
  'from-more-readings': 'attribute_not_exists(n) OR n < :readings',
  repair: 'attribute_not_exists(n) OR n <= :readings',
};

/** An hour's digest kept under the rule by its count; one past the bound is not kept. */
async function keepHour(summary: DaySummary, { hour, digest }: HourDigest, rule: KeepRule): Promise<void> {
  const texts = digestTexts(digest);
  if (texts.c === '') return;
  const item = { pk: observationKeys.patientPk(summary.patientId), sk: `${codeHours(summary.codeId)}${hourKeyOf(summary.day, hour)}`, n: digest.count, ...texts };
  await conditionalPut(item, HOUR_CONDITIONS[rule], digest.count);
}

/** A put under a condition on `:readings`; whether it was written. */
async function conditionalPut(item: Record<string, unknown>, condition: string, readings: number): Promise<boolean> {
  try {
    await retryWhileBusy(() => dynamo().send(new PutCommand({ TableName: table(), Item: item, ConditionExpression: condition, ExpressionAttributeValues: { ':readings': readings } })));
    return true;
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return false;
    throw e;
  }
}

async function day(patientId: number, codeId: number, day: string): Promise<DaySummary | undefined> {
  const [item] = await items(patientId, codeId, { from: day, to: day }, 'sk, readings, g, h, v, c, p, ch');
  return item && fromItem(item, patientId);
}

async function days(patientId: number, codeId: number, range: { from: string; to: string }, histograms: boolean): Promise<DaySummary[]> {
  // Without histograms a year of days is a few kilobytes to send and decode.
  return (await items(patientId, codeId, range, histograms ? 'sk, readings, g, h, ch' : 'sk, readings, g, ch')).map((item) => fromItem(item, patientId));
}

async function bounds(patientId: number, codeId: number, range: { from: string; to: string }): Promise<DayBounds[]> {
  return (await items(patientId, codeId, range, 'sk, v')).map((item) => ({ day: keysOf(item).day, bounds: (item.v as string[] | undefined)?.map(boundsOf) }));
}

async function digests(patientId: number, codeId: number, range: { from: string; to: string }): Promise<DayDigest[]> {
  return (await items(patientId, codeId, range, 'sk, c, p, ch')).map((item) => withHours(item, { day: keysOf(item).day, digest: typeof item.c === 'string' ? digestOf(item.c, item.p) : undefined }));
}

async function figures(patientId: number, codeId: number, range: { from: string; to: string }): Promise<DayFigures[]> {
  return (await items(patientId, codeId, range, 'sk, c, ch')).map((item) => withHours(item, { day: keysOf(item).day, digest: typeof item.c === 'string' ? figuresOfItem(item.c) : undefined }));
}

function withHours<T extends DayFigures>(item: Record<string, unknown>, day: T): T {
  const hours = hourCountsOf(item);
  return hours ? { ...day, hours } : day;
}

function hours(patientId: number, codeId: number, hourKeys: readonly string[], withProfile: true): Promise<Array<KeptHour<CgmDigest>>>;
function hours(patientId: number, codeId: number, hourKeys: readonly string[], withProfile: false): Promise<KeptHour[]>;
async function hours(patientId: number, codeId: number, hourKeys: readonly string[], withProfile: boolean): Promise<KeptHour[]> {
  const pk = observationKeys.patientPk(patientId);
  const kept = await batchGetAll(table(), hourKeys.map((hour) => ({ pk, sk: `${codeHours(codeId)}${hour}` })));
  return kept.flatMap((item) => {
    const digest = withProfile ? digestOf(String(item.c), item.p) : figuresOfItem(String(item.c));
    return typeof digest === 'object' ? [{ hour: String(item.sk).slice(codeHours(codeId).length), digest }] : [];
  });
}

/** The items of a code's days in the range, in day order, with these attributes. */
async function items(patientId: number, codeId: number, range: { from: string; to: string }, attributes: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': observationKeys.patientPk(patientId), ':from': `${codeDays(codeId)}${range.from}`, ':to': `${codeDays(codeId)}${range.to}` },
        ProjectionExpression: attributes,
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    out.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

async function deletePatient(patientId: number): Promise<number> {
  const keys = await queryAll({ table: table(), pk: observationKeys.patientPk(patientId), skPrefix: SUMMARY_ITEMS, attributes: ['pk', 'sk'] });
  const failed = await batchWriteAll(table(), keys.map((Key) => ({ DeleteRequest: { Key } })));
  if (failed.length > 0) throw new Error(`could not delete ${failed.length} day summaries of patient ${patientId}; run the deletion again`);
  return keys.filter((k) => String(k.sk).startsWith(DAYS)).length;
}

export const dynamoSummaryStore: SummaryStore = { keep, day, days, bounds, digests, figures, hours, deletePatient };
