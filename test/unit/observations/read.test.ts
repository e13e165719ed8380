/**
 * Keyset paging over the order's key reads, against an in-memory stand-in for the partition Query
 * (same key ranges, directions, limits and continuation): for every order, page size, filter and
 * mix of patients, dated and undated rows and equal times, walking `next` links returns every
 * matching row exactly once in the order, and walking `previous` links back returns them reversed.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { PartitionQuery } from '../../../shared/observations/read';

const table: Record<string, unknown>[] = [];

vi.mock('../../../shared/observations/read', () => ({
  queryPartition: async (q: PartitionQuery, limit: number | undefined, start?: { at: number }) => {
    const { INDEX, observationKeys } = await import('../../../shared/observations/keys');
    const sk = INDEX[q.index].sortKey;
    const rows = table
      .filter((r) => r.pk === observationKeys.patientPk(q.patientId))
      .filter((r) => (q.from === undefined || String(r[sk]) >= q.from) && (q.to === undefined || String(r[sk]) <= q.to))
      .sort((a, b) => (String(a[sk]) < String(b[sk]) ? -1 : 1) * (q.ascending ? 1 : -1));
    const from = start?.at ?? 0;
    const items = rows.slice(from, limit === undefined ? undefined : from + limit);
    const end = from + items.length;
    return { items, count: items.length, next: end < rows.length ? { at: end } : undefined };
  },
}));

const { toItem } = await import('../../../shared/observations/items');
const { compare, positionOf } = await import('../../../shared/observations/search/order');
const { orderedRows, runsOf } = await import('../../../shared/observations/search/streams');
const { cutPage } = await import('../../../shared/fhir/searchset');
type Order = import('../../../shared/observations/search/order').Order;
type Position = import('../../../shared/observations/search/order').Position;

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
          table.length = 0;
          rows.forEach((r, n) => {
            const start = r.start === undefined ? undefined : Date.UTC(2025, 0, 1, r.start);
            table.push(
              toItem({
                id: n + 1, patientId: r.patient, codeId: r.code, deviceId: 1, status: 'final', identifiers: [], data: '', uuid: `u${n}`,
                effective: start === undefined ? undefined : { kind: 'dateTime', start, end: start },
                lastUpdated: new Date(Date.UTC(2026, 0, 1, r.updated)).toISOString(),
              }),
            );
          });
          const keepCode = (c: number) => filter === 'all' || (filter === 'code 2' ? c === 2 : c !== 2);
          const byIndex = filter === 'codes 1+3 by index' && order.kind !== 'updated';
          const readsOf = (patientId: number) => {
            const base = { patientId, dates: {}, updated: {}, withUndated: true };
            return byIndex ? [1, 3].map((codeId) => ({ ...base, codeId })) : [base];
          };
          const expected = table
            .filter((r) => keepCode(r.codeId as number))
            .sort((a, b) => compare(order, positionOf(order, a), positionOf(order, b)))
            .map((r) => r.id);

          const walk = async (backward: boolean, start: Position | undefined) => {
            const seen: unknown[][] = [];
            let at = start;
            for (let guard = 0; guard < 100; guard++) {
              const t = { order, backward };
              const follows = (item: Record<string, unknown>) => !at || (backward ? -1 : 1) * compare(order, positionOf(order, item), at) > 0;
              const stream = orderedRows([1, 2, 3, 4], readsOf, t, at, (i) => keepCode(i.codeId as number) && follows(i), count + 1);
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
