/**
 * The writes of one day in one process share its recompute (shared/observations/stats/keep.ts,
 * `keepDayShared`): uploads that arrive while a day's summary is being recomputed wait for the next
 * recompute, one for all of them, instead of one each; every reading is still counted, and a failed
 * recompute answers every reading that waited on it 503.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DaySummary } from '../../../shared/observations/stats/day-summary';
import { summaryStore, useSummaryStore } from '../../../shared/observations/store/summary-current';
import type { SummaryStore } from '../../../shared/observations/store/summary-port';
import { call } from '../../support/invoke';
import { observation, observationWorld, statusesOf, upload, type ObservationWorld } from '../../support/observations';

const DAY = Date.UTC(2026, 2, 3);
const MINUTE = 60_000;
let world: ObservationWorld;
let inner: SummaryStore;

beforeEach(async () => {
  world = await observationWorld();
  inner = summaryStore();
});
afterEach(() => useSummaryStore(inner));

/** Four uploads of 25 minute heart rates of one day. */
const fourBatches = () =>
  [0, 1, 2, 3].map((n) =>
    Array.from({ length: 25 }, (_, i) => observation(world, { code: 'omh:heart-rate:2.0', at: DAY + (n * 25 + i) * MINUTE, form: 'date_time', members: { heart_rate: { value: 60 + i, unit: 'beats/min' } } })),
  );

/** The batches sent at once. */
const sendAll = (batches: ReadonlyArray<readonly unknown[]>) => Promise.all(batches.map((batch) => upload(world.patient.token, batch)));

/** The summaries kept, by the readings each counted; the first put held until `release` is called (`first`: once it is reached). */
function holdingFirstKeep(fail = false): { counted: number[]; release: () => void; first: Promise<void> } {
  const counted: number[] = [];
  let release!: () => void;
  let reached!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const first = new Promise<void>((resolve) => (reached = resolve));
  useSummaryStore({
    ...inner,
    keep: async (summary: DaySummary, ...rest) => {
      counted.push(summary.readings);
      if (counted.length === 1) {
        reached();
        await held;
      }
      if (fail) throw new Error('the store is unavailable');
      return inner.keep(summary, ...rest);
    },
  });
  return { counted, release, first };
}

const dayCount = async () => {
  const res = await call('GET', `/FHIR/R5/Observation/$stats?subject=Patient/${world.patient.id}&code=omh:heart-rate:2.0&period=2026-03-03/2026-03-03&statistic=count`, { token: world.patient.token });
  expect(res.status).toBe(200);
  return res.json.parameter[0].resource.component[0].valueQuantity.value as number;
};

describe("a day's recompute shared by the writes that arrive while it runs", () => {
  it('recomputes the day twice for four uploads sent at once, and counts all 100 readings', async () => {
    const keeps = holdingFirstKeep();
    const sent = sendAll(fourBatches());
    // The first recompute is held at its put until the other three uploads have stored their readings and queued behind it.
    await keeps.first;
    await new Promise((resolve) => setTimeout(resolve, 300));
    keeps.release();
    const answers = await sent;
    expect(answers.flatMap(statusesOf).filter((s) => s === '201 Created')).toHaveLength(100);
    expect(keeps.counted).toHaveLength(2);
    expect(keeps.counted[1]).toBe(100);
    expect(await dayCount()).toBe(100);
  });

  it('answers 503 to every reading that waited on a recompute that failed; the re-send counts them', async () => {
    const keeps = holdingFirstKeep(true);
    const batches = fourBatches();
    const sent = sendAll(batches);
    await keeps.first;
    await new Promise((resolve) => setTimeout(resolve, 300));
    keeps.release();
    const answers = await sent;
    expect(answers.flatMap(statusesOf).every((s) => s.startsWith('503'))).toBe(true);
    useSummaryStore(inner);
    const again = await sendAll(batches);
    expect(again.flatMap(statusesOf).every((s) => s === '200 OK')).toBe(true);
    expect(await dayCount()).toBe(100);
  });
});
