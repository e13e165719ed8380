/**
 * Reading the observations table, layout 3: a patient's readings come out of the blocks of their
 * partition, every read strongly consistent and by key (a Query of a key range, GetItem or
 * BatchGetItem; nothing scans).
 *
 * - In effective order, one code: the code's blocks from the stretch of the first time asked to
 *   that of the last, read a few at a time (the Query's limit doubling), each stretch whole (its
 *   segments interleave in time), the readings outside the bounds or before the page's start left
 *   out. Every code: the patient's codes (`#SPAN`) read side by side, merged.
 * - In order of last update: the update log's items in the time bounds, each id taken from the
 *   stretch the log names.
 * - By id: the id's range item, then its stretch. By uuid: the claim, then its stretch.
 *
 * A page's start is the last reading it gave (its start and id, or last update and id): the next
 * page reads from that reading's stretch on and leaves out what comes before it.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import pMap from 'p-map';
import { FIRST_INSTANT, LAST_INSTANT } from '../../omh/datetime';
import { batchGetAll } from '../../store/batch';
import { dynamo } from '../../store/clients';
import { pad } from '../../store/directory-keys';
import type { KeptValue, ReadingFacts, ReadingKey, StoredObservation } from '../model';
import { blockOrder, type PayloadPlace } from './block-codec';
import { BLOCK_FIELDS, boundsOfBlock, FACT_FIELDS, factsOfStretch, readingsOfStretch, type BlockItem } from './block-items';
import { blockKeys, instantKey, patientOfPk, stretchFromText, stretchOf, stretchText, UNDATED_STRETCH, type StretchRef } from './block-keys';
import { logUpdated, pointedIds, rangeHolds, type PointerItem } from './block-pointers';
import { table } from './dynamo-table';
import type { PageStart, ReadingFilter, ReadingsPage, ReadingsQuery } from './port';

/** Where a page stopped: the last reading it gave, in the terms of its order. */
type Position = { order: 'effective'; start: number | undefined; id: number } | { order: 'updated'; at: string; id: number };

const positionOf = (q: ReadingsQuery, r: ReadingFacts): Position =>
  q.order === 'effective' ? { order: 'effective', start: r.effective?.start, id: r.id } : { order: 'updated', at: r.lastUpdated, id: r.id };

/**
 * Blocks a read's first Query asks for: about what a page of `limit` readings needs when a block
 * holds an hour of minute readings (a selective filter: as many as a Query brings); each further
 * Query asks for four times as many, up to the last.
 */
const firstBlockLimit = (limit: number | undefined, filter: ReadingFilter | undefined) =>
  limit === undefined || filter?.mayHold ? MOST_BLOCKS_A_QUERY : Math.min(MOST_BLOCKS_A_QUERY, Math.max(2, Math.ceil(limit / 50) + 1));
const MOST_BLOCKS_A_QUERY = 256;
/** Stretches read side by side (a page of the update order, reads by id). */
const STRETCH_CONCURRENCY = 8;

interface RangeRead {
  pk: string;
  from: string;
  to: string;
  ascending: boolean;
  fields: readonly string[];
}

async function queryPage(r: RangeRead, limit: number | undefined, start: Record<string, unknown> | undefined) {
  const names: Record<string, string> = { '#pk': 'pk', '#sk': 'sk' };
  r.fields.forEach((f, i) => (names[`#f${i}`] = f));
  const out = await dynamo().send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ':pk': r.pk, ':from': r.from, ':to': r.to },
      ProjectionExpression: r.fields.map((_, i) => `#f${i}`).join(', '),
      ScanIndexForward: r.ascending,
      ConsistentRead: true,
      ...(limit !== undefined ? { Limit: limit } : {}),
      ...(start ? { ExclusiveStartKey: start } : {}),
    }),
  );
  return { items: (out.Items ?? []) as BlockItem[], next: out.LastEvaluatedKey };
}

/** Every item of a key range, page after page. */
async function* itemsOf(r: RangeRead, firstLimit?: number): AsyncGenerator<BlockItem> {
  let limit = firstLimit;
  let start: Record<string, unknown> | undefined;
  do {
    const page = await queryPage(r, limit, start);
    yield* page.items;
    start = page.next;
    if (limit !== undefined) limit = Math.min(MOST_BLOCKS_A_QUERY, limit * 4);
  } while (start);
}

/** The stretch a block's key belongs to (its key without the segment). */
const stretchKeyOf = (sk: string) => sk.slice(0, sk.lastIndexOf('#'));

/** The blocks of a key range, one whole stretch at a time (all its segments), in the range's order. */
async function* stretchesOf(r: RangeRead, firstLimit: number): AsyncGenerator<BlockItem[]> {
  let current: BlockItem[] = [];
  for await (const item of itemsOf(r, firstLimit)) {
    if (current.length > 0 && stretchKeyOf(String(item.sk)) !== stretchKeyOf(String(current[0]!.sk))) {
      yield current;
      current = [];
    }
    current.push(item);
  }
  if (current.length > 0) yield current;
}

/** Every segment of one stretch. */
export async function stretchItems(patientId: number, ref: StretchRef, fields: readonly string[] = BLOCK_FIELDS): Promise<BlockItem[]> {
  const prefix = blockKeys.stretchPrefix(ref);
  const items: BlockItem[] = [];
  for await (const item of itemsOf({ pk: blockKeys.patientPk(patientId), from: prefix, to: `${prefix}~`, ascending: true, fields })) items.push(item);
  return items;
}

// ---------------------------------------------------------------------------------------------
// Effective order

/** Whether a reading lies within the query's dated or undated bounds. */
function withinBounds(q: ReadingsQuery, r: ReadingFacts): boolean {
  if (r.effective) {
    const t = q.time;
    return t !== undefined && (t.from === undefined || r.effective.start >= t.from) && (t.to === undefined || r.effective.start <= t.to);
  }
  const u = q.undated;
  return u !== undefined && (u.from === undefined || r.id >= u.from) && (u.to === undefined || r.id <= u.to);
}

/** Whether a reading comes after a page's start in the query's direction. */
function afterPosition(q: ReadingsQuery, after: Position | undefined, r: ReadingFacts): boolean {
  if (!after) return true;
  let cmp: number;
  if (after.order === 'effective') {
    cmp = blockOrder(r, { id: after.id, effective: after.start === undefined ? undefined : { kind: 'dateTime', start: after.start, end: after.start } } as ReadingFacts);
  } else {
    cmp = r.lastUpdated !== after.at ? (r.lastUpdated < after.at ? -1 : 1) : r.id - after.id;
  }
  return q.ascending ? cmp > 0 : cmp < 0;
}

/** The key range of one code's blocks that can hold what the query asks, from a page's start on. */
function codeRange(q: ReadingsQuery, codeId: number, after: Position | undefined, fields: readonly string[]): RangeRead {
  if (!q.time && !q.undated) throw new Error('a read of readings names dated or undated ones');
  let low = q.time ? stretchOf(q.time.from ?? FIRST_INSTANT) : UNDATED_STRETCH;
  let high = q.undated ? UNDATED_STRETCH : stretchOf(q.time!.to ?? LAST_INSTANT);
  if (after?.order === 'effective') {
    const at = stretchOf(after.start);
    if (q.ascending && at > low) low = at;
    if (!q.ascending && at < high) high = at;
  }
  const prefix = blockKeys.codePrefix(codeId);
  return { pk: blockKeys.patientPk(q.patientId), from: `${prefix}${low}#`, to: `${prefix}${high}#~`, ascending: q.ascending, fields };
}

/** What a read makes of each reading: its facts only (a count), or the whole reading (a page). */
type Yield = 'facts' | 'readings';

/**
 * The readings of a stretch the query, the page's start and the filter let through, in block order:
 * segments whose value bounds the filter rules out are passed over, each other's facts tested
 * before its payloads are inflated (after, when the filter reads payloads).
 */
function fromStretch(stretch: readonly BlockItem[], patientId: number, codeId: number, pass: (r: ReadingFacts) => boolean, filter: ReadingFilter | undefined, yields: Yield): ReadingFacts[] {
  const segments = filter?.mayHold
    ? stretch.filter((item) => {
        const bounds = boundsOfBlock(item);
        return bounds === undefined || filter.mayHold!(codeId, bounds);
      })
    : stretch;
  if (segments.length === 0) return [];
  if (yields === 'facts') return factsOfStretch(segments, patientId).filter(pass);
  if (!filter) return readingsOfStretch(segments, patientId, pass);
  const mayKeep = filter.keepValues && ((values: KeptValue[] | undefined) => filter.keepValues!(codeId, values));
  if (filter.needsPayload) return readingsOfStretch(segments, patientId, pass, mayKeep).filter(filter.keep);
  return readingsOfStretch(segments, patientId, (r) => pass(r) && filter.keep(r), mayKeep);
}

/**
 * Readings in order, a run at a time (a stretch's, a group of one update's): a reading a yield
 * would cost an awaited promise each, several times over on the way up (about 1 µs apiece, most
 * of reading a block's 60 readings). A run is never empty.
 */
type Runs = AsyncGenerator<ReadingFacts[]>;

/** One code's readings (or their facts) that the query, the page's start and the filter let through, in order. */
async function* codeReadings(q: ReadingsQuery, codeId: number, after: Position | undefined, yields: Yield, limit: number | undefined, filter?: ReadingFilter): Runs {
  const pass = (r: ReadingFacts) => withinBounds(q, r) && afterPosition(q, after, r);
  for await (const stretch of stretchesOf(codeRange(q, codeId, after, yields === 'facts' ? FACT_FIELDS : BLOCK_FIELDS), firstBlockLimit(limit, filter))) {
    const rows = fromStretch(stretch, q.patientId, codeId, pass, filter, yields);
    if (rows.length === 0) continue;
    if (!q.ascending) rows.reverse();
    yield rows;
  }
}

/** The codes a patient has readings of (kept with the span statistics as readings are stored). */
export async function patientCodes(patientId: number): Promise<number[]> {
  const [span] = await batchGetAll(table(), [blockKeys.span(patientId)]);
  const codes = span?.codes as Set<number> | undefined;
  return codes ? [...codes].map(Number).sort((a, b) => a - b) : [];
}

/**
 * Ordered runs merged into one order (a handful of codes: the heads compared in turn). What is
 * merged goes out before a stream is asked for its next run, so a read goes no further than asked.
 */
async function* merged(streams: readonly Runs[], compare: (a: ReadingFacts, b: ReadingFacts) => number): Runs {
  const heads = await Promise.all(streams.map(async (stream) => ({ stream, run: (await stream.next()).value as ReadingFacts[] | undefined, at: 0 })));
  let out: ReadingFacts[] = [];
  for (;;) {
    let best: (typeof heads)[number] | undefined;
    for (const h of heads) if (h.run && (!best || compare(h.run[h.at]!, best.run![best.at]!) < 0)) best = h;
    if (!best) break;
    out.push(best.run![best.at++]!);
    if (best.at === best.run!.length) {
      if (out.length > 0) yield out;
      out = [];
      best.run = (await best.stream.next()).value as ReadingFacts[] | undefined;
      best.at = 0;
    }
  }
  if (out.length > 0) yield out;
}

async function* effectiveReadings(q: ReadingsQuery, after: Position | undefined, yields: Yield, limit: number | undefined, filter?: ReadingFilter): Runs {
  if (q.codeId !== undefined) return yield* codeReadings(q, q.codeId, after, yields, limit, filter);
  const codes = await patientCodes(q.patientId);
  if (codes.length === 1) return yield* codeReadings(q, codes[0]!, after, yields, limit, filter);
  const compare = q.ascending ? blockOrder : (a: ReadingFacts, b: ReadingFacts) => blockOrder(b, a);
  yield* merged(codes.map((codeId) => codeReadings(q, codeId, after, yields, limit, filter)), compare);
}

// ---------------------------------------------------------------------------------------------
// Order of last update

/** Readings named by ids, each from the stretch its pointer names; ids whose reading never landed are left out. */
export async function readingsAt(patientId: number, wanted: ReadonlyArray<{ id: number; ref: StretchRef }>, yields: Yield, filter?: ReadingFilter): Promise<Map<number, ReadingFacts>> {
  const byStretch = new Map<string, Set<number>>();
  for (const { id, ref } of wanted) {
    const text = stretchText(ref);
    const ids = byStretch.get(text);
    if (ids) ids.add(id);
    else byStretch.set(text, new Set([id]));
  }
  const found = new Map<number, ReadingFacts>();
  await pMap(
    [...byStretch],
    async ([text, ids]) => {
      const ref = stretchFromText(text);
      const items = await stretchItems(patientId, ref, yields === 'facts' ? FACT_FIELDS : BLOCK_FIELDS);
      const rows = fromStretch(items, patientId, ref.codeId, (r) => ids.has(r.id), filter, yields);
      for (const r of rows) found.set(r.id, r);
    },
    { concurrency: STRETCH_CONCURRENCY },
  );
  return found;
}

/** The most readings of one update's group given out at once. */
const GROUP_RUN = 100;

async function* updatedReadings(q: ReadingsQuery, after: Position | undefined, yields: Yield, filter?: ReadingFilter): Runs {
  const t = q.time ?? {};
  const from = after?.order === 'updated' && q.ascending ? after.at : t.from === undefined ? '' : instantKey(t.from);
  const to = after?.order === 'updated' && !q.ascending ? after.at : t.to === undefined ? '~' : instantKey(t.to);
  const logs = itemsOf({ pk: blockKeys.patientPk(q.patientId), from: `${blockKeys.logPrefix}${from}`, to: `${blockKeys.logPrefix}${to}#~`, ascending: q.ascending, fields: ['sk', 'st', 'x'] }, 8);
  // Uploads stored in the same millisecond are one group: their ids interleave.
  let group: PointerItem[] = [];
  const flush = async function* (items: PointerItem[]): Runs {
    if (items.length === 0) return;
    const at = logUpdated(items[0]!);
    const ms = Date.parse(at);
    if ((t.from !== undefined && ms < t.from) || (t.to !== undefined && ms > t.to)) return;
    const wanted = items.flatMap(pointedIds).sort((a, b) => (q.ascending ? a.id - b.id : b.id - a.id));
    const found = await readingsAt(q.patientId, wanted, yields, filter);
    let run: ReadingFacts[] = [];
    for (const { id } of wanted) {
      const r = found.get(id);
      if (!r || r.lastUpdated !== at || !afterPosition(q, after, r)) continue;
      run.push(r);
      // A group can be a whole upload of thousands: given out a run at a time, so a page stops where it fills.
      if (run.length === GROUP_RUN) {
        yield run;
        run = [];
      }
    }
    if (run.length > 0) yield run;
  };
  for await (const item of logs) {
    if (group.length > 0 && logUpdated(item) !== logUpdated(group[0]!)) {
      yield* flush(group);
      group = [];
    }
    group.push(item);
  }
  yield* flush(group);
}

// ---------------------------------------------------------------------------------------------
// The port's reads

function ordered(q: ReadingsQuery, after: Position | undefined, yields: Yield, limit: number | undefined, filter?: ReadingFilter): Runs {
  return q.order === 'effective' ? effectiveReadings(q, after, yields, limit, filter) : updatedReadings(q, after, yields, filter);
}

/** A page of the readings `filter` keeps after `start`, at most `limit`; its start for the next page when it stopped at the limit. */
export async function readings(q: ReadingsQuery, limit: number | undefined, start?: PageStart, filter?: ReadingFilter): Promise<ReadingsPage> {
  const after = start as unknown as Position | undefined;
  const out: StoredObservation[] = [];
  if (limit === 0) return { readings: out, next: start };
  const stream = ordered(q, after, 'readings', limit, filter);
  for await (const run of stream) {
    for (const r of run) {
      out.push(r as StoredObservation);
      if (limit !== undefined && out.length >= limit) {
        await stream.return(undefined);
        return { readings: out, next: positionOf(q, r) as unknown as PageStart };
      }
    }
  }
  return { readings: out, next: undefined };
}

/**
 * How many readings the query reads (those `test` accepts, when given), from their facts alone, or
 * with their payloads when the test reads them (`withPayload`).
 */
export async function countReadings(q: ReadingsQuery, test?: (reading: ReadingFacts) => boolean, withPayload = false): Promise<number> {
  let n = 0;
  for await (const run of ordered(q, undefined, test && withPayload ? 'readings' : 'facts', undefined)) for (const r of run) if (!test || test(stripFacts(r, withPayload))) n += 1;
  return n;
}

/** A reading's facts as a test sees them: without the block's bookkeeping or the uuid, and without the payload unless asked. */
function stripFacts(r: ReadingFacts, withPayload: boolean): ReadingFacts {
  const { place: _p, uuid: _u, data, ...facts } = r as ReadingFacts & { place?: PayloadPlace; uuid?: string; data?: string };
  return withPayload && data !== undefined ? { ...facts, data } : facts;
}

/** The range items of one id partition that can hold these ids, and each id's patient and stretch. */
async function locate(ids: readonly number[]): Promise<Map<number, { patientId: number; ref: StretchRef }>> {
  const byPartition = new Map<string, number[]>();
  for (const id of ids) {
    const pk = blockKeys.rangePk(id);
    const list = byPartition.get(pk);
    if (list) list.push(id);
    else byPartition.set(pk, [id]);
  }
  const found = new Map<number, { patientId: number; ref: StretchRef }>();
  await pMap(
    [...byPartition],
    async ([pk, wanted]) => {
      const highest = Math.max(...wanted);
      // One id: the range with the greatest first id at or below it. Several: every range up to the highest.
      const only = wanted.length === 1;
      const ranges: BlockItem[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await queryPage({ pk, from: pad(0), to: pad(highest), ascending: !only, fields: ['sk', 'last', 'p', 'st', 'x'] }, only ? 1 : undefined, start);
        ranges.push(...page.items);
        start = only ? undefined : page.next;
      } while (start);
      if (!only) ranges.reverse();
      for (const id of wanted) {
        const range = ranges.find((r) => Number(r.sk) <= id);
        const held = rangeHolds(range, id);
        if (held) found.set(id, held);
      }
    },
    { concurrency: STRETCH_CONCURRENCY },
  );
  return found;
}

/** Readings by id, from the stretches their ranges name, grouped by patient. */
async function readLocated(located: Map<number, { patientId: number; ref: StretchRef }>): Promise<StoredObservation[]> {
  const byPatient = new Map<number, Array<{ id: number; ref: StretchRef }>>();
  for (const [id, { patientId, ref }] of located) {
    const list = byPatient.get(patientId);
    if (list) list.push({ id, ref });
    else byPatient.set(patientId, [{ id, ref }]);
  }
  const found = await pMap([...byPatient], ([patientId, wanted]) => readingsAt(patientId, wanted, 'readings'), { concurrency: STRETCH_CONCURRENCY });
  return found.flatMap((m) => [...m.values()]) as StoredObservation[];
}

export async function readById(id: number): Promise<StoredObservation | undefined> {
  const [reading] = await readLocated(await locate([id]));
  return reading;
}

export async function readByIds(ids: readonly number[]): Promise<StoredObservation[]> {
  if (ids.length === 0) return [];
  return readLocated(await locate([...new Set(ids)]));
}

/** The claims of these readings (patient + uuid) that exist: each names the reading's id, stretch and time of storing. */
export async function claimsOf(keys: readonly ReadingKey[]): Promise<Array<{ patientId: number; uuid: string; id: number; ref: StretchRef; at: string }>> {
  const items = await batchGetAll(table(), keys.map((k) => blockKeys.claim(k.patientId, k.uuid)));
  return items.map((item) => ({
    patientId: patientOfPk(item.pk),
    uuid: String(item.sk).slice(2),
    id: Number(item.id),
    ref: stretchFromText(String(item.st)),
    at: String(item.at),
  }));
}

/** The readings already stored among these (patient + uuid): claimed, and in the stretch the claim names. */
export async function findReadings(keys: readonly ReadingKey[]): Promise<StoredObservation[]> {
  if (keys.length === 0) return [];
  const claims = await claimsOf(keys);
  return readLocated(new Map(claims.map((c) => [c.id, { patientId: c.patientId, ref: c.ref }])));
}

