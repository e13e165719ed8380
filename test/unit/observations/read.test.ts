/**
 * Keyset paging over the order's reads, against the observation store's in-memory twin (which the
 * contract suite holds to the DynamoDB adapter's ranges, directions, limits and continuation): for
 * every order, page size, filter and mix of patients, dated and undated readings and equal times,
 * walking `next` links returns every matching reading exactly once in the order, and walking
 * `previous` links back returns them reversed.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { cutPage } from '../../../shared/fhir/searchset';
import type { StoredObservation } from '../../../shared/observations/model';
import { compare, positionOf, type Order, type Position } from '../../../shared/observations/search/order';
import { orderedRows } from '../../../shared/observations/search/ordered-rows';
import { runsOf } from '../../../shared/observations/search/streams';
import { useObservationStore } from '../../../shared/observations/store/current';
import { memoryObservationStore } from '../../../shared/observations/store/memory';

const previousStore = useObservationStore(memoryObservationStore());
afterAll(() => void useObservationStore(previousStore));

const ORDERS: Order[] = [
  { kind: 'date', descending: false },
  { kind: 'date', descending: true },
  { kind: 'updated', descending: false },
  { kind: 'updated', descending: true },
  { kind: 'patient', descending: true },
];

const row = fc.record({
  patient: fc.integer({ min: 1, max: 4 }),
  code: fc.integer({ min: 1, max: 3 }),
  start: fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
  updated: fc.integer({ min: 0, max: 3 }),
});

describe('keyset paging', () => {
  it('returns every matching row once, in order, forwards and backwards', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { maxLength: 40 }),
        fc.constantFrom(...ORDERS),
        fc.integer({ min: 1, max: 7 }),
        fc.constantFrom('all', 'code 2', 'codes 1+3 by index'),
        async (rows, order, count, filter) => {
          const table: StoredObservation[] = rows.map((r, n) => {
            const start = r.start === undefined ? undefined : Date.UTC(2025, 0, 1, r.start);
            return {
              id: n + 1, patientId: r.patient, codeId: r.code, deviceId: 1, status: 'final', identifiers: [], data: '', uuid: `u${n}`,
              effective: start === undefined ? undefined : { kind: 'dateTime', start, end: start },
              lastUpdated: new Date(Date.UTC(2026, 0, 1, r.updated)).toISOString(),
            };
          });
          const store = memoryObservationStore();
          useObservationStore(store);
          await store.insert(table);
          const keepCode = (c: number) => filter === 'all' || (filter === 'code 2' ? c === 2 : c !== 2);
          const byIndex = filter === 'codes 1+3 by index' && order.kind !== 'updated';
          const readsOf = (patientId: number) => {
            const base = { patientId, dates: {}, updated: {}, withUndated: true };
            return byIndex ? [1, 3].map((codeId) => ({ ...base, codeId })) : [base];
          };
          const expected = table
            .filter((r) => keepCode(r.codeId))
            .sort((a, b) => compare(order, positionOf(order, a), positionOf(order, b)))
            .map((r) => r.id);

          const walk = async (backward: boolean, start: Position | undefined) => {
            const seen: unknown[][] = [];
            let at = start;
            for (let guard = 0; guard < 100; guard++) {
              const t = { order, backward };
              const follows = (item: StoredObservation) => !at || (backward ? -1 : 1) * compare(order, positionOf(order, item), at) > 0;
              const stream = orderedRows([1, 2, 3, 4], readsOf, t, at, (i) => keepCode(i.codeId) && follows(i), count + 1);
              const cursor = at && { direction: backward ? ('previous' as const) : ('next' as const), at };
              const page = await cutPage(runsOf(stream), count, cursor, (i) => positionOf(order, i));
              seen.push(page.rows.map((i) => i.id));
              if (backward) expect(page.next, 'a backward page leads forward again').toBeDefined();
              const link = backward ? page.previous : page.next;
              if (!link) return { seen, last: page };
              at = link.at;
            }
            throw new Error('paging did not end');
          };
          const forward = await walk(false, undefined);
          expect(forward.seen.flat()).toEqual(expected);
          expect(forward.seen.slice(0, -1).every((p) => p.length === count)).toBe(true);
          if (expected.length > 0) {
            const lastPage = forward.last;
            const back = await walk(true, lastPage.rows.length > 0 ? positionOf(order, lastPage.rows[0]!) : undefined);
            expect([...back.seen].reverse().flat()).toEqual(expected.slice(0, expected.length - lastPage.rows.length));
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe("a value search's runs", () => {
  it('are read a few at once, each once, their rows in order', async () => {
    const hour = (h: number) => Date.UTC(2025, 0, 1, h);
    const table: StoredObservation[] = Array.from({ length: 10 }, (_, h) => ({
      id: h + 1, patientId: 1, codeId: 1, deviceId: 1, status: 'final', identifiers: [], data: '', uuid: `u${h}`,
      effective: { kind: 'dateTime', start: hour(h), end: hour(h) }, lastUpdated: new Date(hour(24)).toISOString(),
    }));
    const store = memoryObservationStore();
    await store.insert(table);
    let inFlight = 0;
    let most = 0;
    let reads = 0;
    useObservationStore({
      ...store,
      readings: async (...args) => {
        reads += 1;
        most = Math.max(most, ++inFlight);
        await new Promise((wait) => setTimeout(wait, 2));
        inFlight -= 1;
        return store.readings(...args);
      },
    });
    // One run an hour, as a value search plans them from its day summaries.
    const runs = table.map((_, h) => ({ lo: hour(h), hi: hour(h + 1) }));
    const stream = orderedRows([1], (patientId) => [{ patientId, codeId: 1, dates: {}, runs, updated: {}, withUndated: false }], { order: { kind: 'date', descending: false }, backward: false }, undefined, () => true, 100);
    const rows: number[] = [];
    for await (const run of runsOf(stream)) rows.push(...run.map((r) => r.id));
    expect(rows).toEqual(table.map((r) => r.id));
    expect(reads).toBe(10);
    expect(most).toBe(4);
  });
});
