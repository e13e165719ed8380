/**
 * A value search reads only the hours its day summaries leave (shared/observations/search/hours.ts):
 * ten days of minute heart rates where one hour holds values above 120 is searched by reading that
 * hour's rows (counted at the observation store's port), for a page, every page and a count; a
 * day without a summary, or with one kept before the bounds were, is read whole, and its matches
 * are still found.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { observationStore, useObservationStore } from '../../../shared/observations/store/current';
import type { ObservationStore, ReadingsQuery } from '../../../shared/observations/store/port';
import { summaryStore, useSummaryStore } from '../../../shared/observations/store/summary-current';
import type { SummaryStore } from '../../../shared/observations/store/summary-port';
import { allPages, matchIds, observation, observationWorld, search, upload, type ObservationWorld } from '../../support/observations';
import { call } from '../../support/invoke';

const pathOf = (url: string) => `${new URL(url).pathname}${new URL(url).search}`;

const MONTH = Date.UTC(2025, 2, 1);
/** Ten days: enough for the summaries to rule days out, few enough to seed quickly on a busy machine. */
const DAYS = 10;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** The hour whose readings are above 120: 2025-03-05, 10:00-11:00. */
const HIGH_HOUR = MONTH + 4 * 24 * HOUR + 10 * HOUR;

let world: ObservationWorld;

/** A resting heart rate (55-90, varying by minute), or 121-140 within the high hour. */
function beats(at: number): number {
  const minute = Math.floor(at / MINUTE);
  return at >= HIGH_HOUR && at < HIGH_HOUR + HOUR ? 121 + (minute % 20) : 55 + ((minute * 7) % 36);
}

const heartRate = (at: number, value = beats(at)) =>
  observation(world, { code: 'omh:heart-rate:2.0', at, form: 'date_time', members: { heart_rate: { value, unit: 'beats/min' } } });

async function uploadAll(times: readonly number[], value?: number): Promise<void> {
  for (let i = 0; i < times.length; i += 1000) {
    const res = await upload(world.patient.token, times.slice(i, i + 1000).map((at) => heartRate(at, value)));
    expect(res.status).toBe(200);
  }
}

/** What the searches read through the observation store's port from now on: the reads, and the rows they gave (their filter's matches). */
function recordReads(): { rows: () => number; queries: ReadingsQuery[]; counted: ReadingsQuery[] } {
  const inner = observationStore();
  let rows = 0;
  const queries: ReadingsQuery[] = [];
  const counted: ReadingsQuery[] = [];
  const recording: ObservationStore = {
    ...inner,
    readings: async (query, limit, start, filter) => {
      const page = await inner.readings(query, limit, start, filter);
      queries.push(query);
      rows += page.readings.length;
      return page;
    },
    countReadings: async (query, test, withPayload) => {
      counted.push(query);
      return inner.countReadings(query, test, withPayload);
    },
  };
  restore.push(() => useObservationStore(inner));
  useObservationStore(recording);
  return { rows: () => rows, queries, counted };
}

const restore: Array<() => void> = [];
afterEach(() => {
  for (const undo of restore.splice(0).reverse()) undo();
});

const MONTH_END = MONTH + DAYS * 24 * HOUR;
/**
 * Whether a read reaches no minute of the ten days but the high hour: it reads within that hour, or
 * only before or after the ten days (days without summaries are read, and hold nothing here), or
 * only undated readings.
 */
const onlyTheHour = (q: ReadingsQuery) => {
  if (q.time === undefined) return true;
  const from = q.time.from ?? -Infinity;
  const to = q.time.to ?? Infinity;
  return (from >= HIGH_HOUR && to < HIGH_HOUR + HOUR) || to < MONTH || from >= MONTH_END;
};

beforeAll(async () => {
  world = await observationWorld();
  await uploadAll(Array.from({ length: DAYS * 24 * 60 }, (_, i) => MONTH + i * MINUTE));
});

const query = () => `patient=${world.patient.id}&code=omh:heart-rate:2.0&value-quantity=gt120`;

describe('a value search over ten days of minute heart rates', () => {
  it("reads the one hour that holds values above 120, and only that hour's rows", async () => {
    const reads = recordReads();
    const res = await search(world.practitioner.token, `${query()}&_count=100`);
    expect(res.status).toBe(200);
    expect(matchIds(res)).toHaveLength(60);
    expect(res.json.total).toBe(60);
    expect(reads.rows()).toBe(60);
    expect(reads.queries.every(onlyTheHour)).toBe(true);
  });

  it('pages through the same rows in either order, each page reading within the hour', async () => {
    const reads = recordReads();
    const ids = new Set<string>();
    for (const sort of ['', '&_sort=date', '&_sort=-date']) {
      const pages = await allPages(world.practitioner.token, `${query()}&_count=25${sort}`);
      expect(pages).toHaveLength(3);
      const found = pages.flatMap(matchIds);
      expect(new Set(found).size).toBe(60);
      for (const id of found) ids.add(id);
    }
    expect(ids.size).toBe(60);
    expect(reads.queries.every(onlyTheHour)).toBe(true);
  });

  it("reads the day summaries for the first page only: later pages follow the plan their cursor carries", async () => {
    const inner = summaryStore();
    let boundsReads = 0;
    useSummaryStore({ ...inner, bounds: async (...args) => ((boundsReads += 1), inner.bounds(...args)) });
    restore.push(() => useSummaryStore(inner));
    const reads = recordReads();
    const pages = await allPages(world.practitioner.token, `${query()}&_count=10`);
    expect(pages).toHaveLength(6);
    expect(new Set(pages.flatMap(matchIds)).size).toBe(60);
    expect(boundsReads).toBe(1);
    expect(reads.queries.every(onlyTheHour)).toBe(true);
    // Back from the last page: still the plan, no summaries read.
    const previous = (pages[5]!.json.link as Array<{ relation: string; url: string }>).find((l) => l.relation === 'previous')!;
    const back = await call('GET', pathOf(previous.url), { token: world.practitioner.token });
    expect(matchIds(back)).toEqual(matchIds(pages[4]!));
    expect(boundsReads).toBe(1);
  });

  it('plans a page again when its cursor\'s plan was edited, and never reads past the date filter for it', async () => {
    const inner = summaryStore();
    let boundsReads = 0;
    useSummaryStore({ ...inner, bounds: async (...args) => ((boundsReads += 1), inner.bounds(...args)) });
    restore.push(() => useSummaryStore(inner));
    const day = '2025-03-05';
    const [first, second] = await allPages(world.practitioner.token, `${query()}&date=${day}&_count=30`);
    expect(boundsReads).toBe(1);
    const next = new URL((first!.json.link as Array<{ relation: string; url: string }>).find((l) => l.relation === 'next')!.url);
    const edited = (hint: unknown) => {
      const cursor = JSON.parse(Buffer.from(next.searchParams.get('_cursor')!, 'base64url').toString('utf8'));
      const url = new URL(next);
      url.searchParams.set('_cursor', Buffer.from(JSON.stringify({ ...cursor, h: hint }), 'utf8').toString('base64url'));
      return pathOf(url.href);
    };
    // Malformed: ignored, the page planned again from the summaries, the same rows.
    for (const hint of ['x', [[1, 2, 3]], [[world.patient.id, 1, 5, 4]], { __proto__: 1 }]) {
      const res = await call('GET', edited(hint), { token: world.practitioner.token });
      expect(res.status).toBe(200);
      expect(matchIds(res)).toEqual(matchIds(second!));
    }
    expect(boundsReads).toBe(5);
    // A plan that claims all ten days: read only within the day the search names.
    const cursor = JSON.parse(Buffer.from(next.searchParams.get('_cursor')!, 'base64url').toString('utf8'));
    const [patientId, codeId] = (cursor.h as number[][])[0]!;
    const reads = recordReads();
    const wide = await call('GET', edited([[patientId, codeId, MONTH, MONTH_END]]), { token: world.practitioner.token });
    expect(matchIds(wide)).toEqual(matchIds(second!));
    const dayStart = Date.parse(day);
    expect(reads.queries.every((q) => q.time === undefined || ((q.time.from ?? -Infinity) >= dayStart && (q.time.to ?? Infinity) < dayStart + 24 * HOUR))).toBe(true);
  });

  it('counts (`_summary=count`) within the hour, and reads nothing where nothing can match', async () => {
    const reads = recordReads();
    const count = await search(world.practitioner.token, `${query()}&_summary=count`);
    expect(count.json.total).toBe(60);
    expect(reads.counted.length).toBeGreaterThan(0);
    expect(reads.counted.every(onlyTheHour)).toBe(true);
    const none = await search(world.practitioner.token, `patient=${world.patient.id}&code=omh:heart-rate:2.0&value-quantity=gt140&date=2025-03`);
    expect(matchIds(none)).toEqual([]);
    expect(reads.rows()).toBe(0);
  });

  it('reads a day kept before the bounds were, or without a summary, whole, and finds its matches', async () => {
    // The day after the ten days, uploaded while summaries are not kept (a store not yet migrated).
    const inner = summaryStore();
    useSummaryStore({ ...inner, keep: async () => false });
    await uploadAll([MONTH + DAYS * 24 * HOUR + 5 * HOUR], 150);
    // And 2025-03-08's summary as one kept before the bounds were.
    const stale = '2025-03-08';
    const hiding: SummaryStore = { ...inner, bounds: async (...args) => (await inner.bounds(...args)).map((d) => (d.day === stale ? { day: d.day, bounds: undefined } : d)) };
    useSummaryStore(hiding);
    restore.push(() => useSummaryStore(inner));
    const reads = recordReads();
    const res = await search(world.practitioner.token, `${query()}&_count=100`);
    expect(matchIds(res)).toHaveLength(61);
    // The high hour, 2025-03-08 whole, and the day without a summary (its one reading): only matches come back.
    expect(reads.rows()).toBe(61);
    const stale20 = Date.parse(stale);
    expect(reads.queries.some((q) => (q.time?.from ?? Infinity) <= stale20 && (q.time?.to ?? -Infinity) >= stale20 + 24 * HOUR - 1)).toBe(true);
    const count = await search(world.practitioner.token, `${query()}&_summary=count`);
    expect(count.json.total).toBe(61);
  });
});

describe('a value search whose matching hours lie close together', () => {
  it('reads two runs a narrow gap apart in one read, and a run far from them in its own', async () => {
    world = await observationWorld();
    const day = Date.UTC(2025, 5, 2);
    const high = new Set([day + 10 * HOUR + 5 * MINUTE, day + 12 * HOUR + 30 * MINUTE, day + 20 * HOUR + 15 * MINUTE]);
    const times = Array.from({ length: 24 * 60 }, (_, i) => day + i * MINUTE);
    for (let i = 0; i < times.length; i += 1000) {
      const res = await upload(world.patient.token, times.slice(i, i + 1000).map((at) => heartRate(at, high.has(at) ? 151 : 60 + (at / MINUTE) % 30)));
      expect(res.status).toBe(200);
    }
    const reads = recordReads();
    const res = await search(world.practitioner.token, `patient=${world.patient.id}&code=omh:heart-rate:2.0&value-quantity=gt150&_count=100`);
    expect(matchIds(res)).toHaveLength(3);
    const within = (q: ReadingsQuery, from: number, to: number) => q.time !== undefined && (q.time.from ?? -Infinity) >= from && (q.time.to ?? Infinity) < to;
    const dated = reads.queries.filter((q) => q.time !== undefined && (q.time.to ?? Infinity) >= day && (q.time.from ?? -Infinity) < day + 24 * HOUR);
    // Hours 10 and 12 in one read (hour 11 read with them); hour 20 in another, with what follows the
    // day (no summaries there, three hours after it: read with it); hours 0-9 and 13-19 not at all.
    expect(dated.some((q) => within(q, day + 10 * HOUR, day + 13 * HOUR) && (q.time!.from ?? 0) <= day + 10 * HOUR + 5 * MINUTE && (q.time!.to ?? 0) >= day + 12 * HOUR + 30 * MINUTE)).toBe(true);
    expect(dated.every((q) => within(q, day + 10 * HOUR, day + 13 * HOUR) || (q.time!.from ?? -Infinity) >= day + 20 * HOUR)).toBe(true);
    expect(reads.rows()).toBe(3);
  });
});
