/**
 * A batch upload against a slow store (latency injected into the observation store's twin): it is
 * answered before its deadline with a normal batch-response, the readings done acknowledged and the
 * rest `503` with Retry-After, each saying it can be sent again as it is; sent again, the batch is
 * complete and every reading is stored once. A batch of which nothing could start is a whole `503`.
 */
import { randomUUID } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RETRY_AFTER_SECONDS } from '../../../shared/http/deadline';
import { observationStore, useObservationStore } from '../../../shared/observations/store/current';
import type { ObservationStore } from '../../../shared/observations/store/port';
import { call } from '../../support/invoke';
import { batchOf, observation, observationWorld, statusesOf, storedRows, upload, type ObservationWorld } from '../../support/observations';
import { saturated, slowed } from '../../support/slow-stores';

let world: ObservationWorld;
let twin: ObservationStore;
beforeAll(async () => {
  world = await observationWorld();
  twin = observationStore();
});
afterEach(() => void useObservationStore(twin));

/** The function's time limit of these calls: 1.5 s of it go to the early answer and to rendering, 4.5 s to work. */
const TIMEOUT_MS = 6000;

interface Readings {
  resources: Array<Record<string, unknown>>;
  uuids: Set<string>;
}

function readings(count: number, day: number): Readings {
  const uuids = Array.from({ length: count }, () => randomUUID());
  return { resources: uuids.map((uuid, i) => observation(world, { uuid, at: Date.UTC(2025, 5, day) + i * 60_000 })), uuids: new Set(uuids) };
}

/** The stored rows of these readings (other tests' slices may still be landing beside them). */
const storedOf = async ({ uuids }: Readings) => (await storedRows(world.patient.id)).filter((row) => uuids.has(row.uuid));
const postOnTime = (resources: readonly unknown[]) => call('POST', '/FHIR/R5/', { token: world.patient.token, body: batchOf(resources), timeoutMs: TIMEOUT_MS });
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Waits until `done` holds, asking every 100 ms; the test's hang guard bounds the wait. */
async function until(done: () => Promise<boolean>): Promise<void> {
  while (!(await done())) await settle(100);
}

describe('a batch upload against a slow store', () => {
  it('is answered before its deadline: what was done acknowledged, the rest 503 to send again; the re-send completes it, each reading once', async () => {
    // A saturated store: one slice at a time, 200 ms each, so 40 slices need 8 s and the deadline allows 4.5.
    useObservationStore(saturated(twin, ['insert'], 200));
    const batch = readings(1000, 1);
    // The time this process could not run (another process had the CPU, or rendering held the
    // loop): a handler that stops starting slices in time is late by no more than that. Starting
    // slices past the deadline is not excused: their time is timers waiting, not a stalled loop.
    const stalled = monitorEventLoopDelay({ resolution: 10 });
    stalled.enable();
    const started = performance.now();
    const first = await postOnTime(batch.resources);
    const took = performance.now() - started;
    stalled.disable();

    // Answered by the batch (200) before middy's last-resort 503 a second before the limit.
    expect(first.status).toBe(200);
    expect(took).toBeLessThan(TIMEOUT_MS + stalled.max / 1e6);
    const statuses = statusesOf(first);
    const done = statuses.filter((s) => s === '201 Created').length;
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(batch.resources.length);
    expect(new Set(statuses)).toEqual(new Set(['201 Created', '503 Service Unavailable']));
    // In order: slices start from the front, so what is left is the tail.
    expect(statuses.slice(0, done).every((s) => s === '201 Created')).toBe(true);
    expect(first.headers['retry-after']).toBe(String(RETRY_AFTER_SECONDS));
    const left = (first.json.entry as any[]).filter((e) => e.response.status.startsWith('503'));
    const notStarted = left.filter((e) => /^Not processed: /.test(e.response.outcome.issue[0].diagnostics));
    // The tail was never started; slices started near the deadline may say "not confirmed" instead.
    expect(notStarted.length).toBeGreaterThan(0);
    expect(left.at(-1)).toBe(notStarted.at(-1));
    expect(notStarted[0].response.outcome.issue).toEqual([
      expect.objectContaining({ severity: 'error', code: 'timeout', diagnostics: expect.stringContaining('this reading was started, and nothing of it was stored. Send it again as it is.') }),
    ]);
    expect(left.every((e) => e.resource === undefined)).toBe(true);

    // Stored: what was acknowledged, and what was not confirmed once it lands (the slow store only
    // delays: it lands); nothing not started. Waited for as a state, since landing takes longer on a busy machine.
    const landed = batch.resources.length - notStarted.length;
    await until(async () => (await storedOf(batch)).length >= landed);
    const stored = (await storedOf(batch)).length;
    expect(stored).toBe(landed);

    useObservationStore(twin);
    const second = await upload(world.patient.token, batch.resources);
    const again = statusesOf(second);
    expect(again.filter((_, i) => statuses[i] === '201 Created').every((s) => s === '200 OK')).toBe(true);
    expect(again.filter((s) => s === '201 Created')).toHaveLength(batch.resources.length - stored);
    expect(await storedOf(batch)).toHaveLength(batch.resources.length);
  });

  it('a slice that outlasts the deadline answers "not confirmed"; once it lands, the re-send finds its readings stored, none twice', async () => {
    // The third store call hangs past the deadline; the others are quick.
    useObservationStore(slowed(twin, ['insert'], (n) => (n === 3 ? 6000 : 20)));
    const batch = readings(100, 2);
    const first = await postOnTime(batch.resources);
    expect(first.status).toBe(200);
    const entries = first.json.entry as any[];
    const unconfirmed = entries.filter((e) => e.response.status.startsWith('503'));
    expect(unconfirmed).toHaveLength(25);
    expect(unconfirmed[0].response.outcome.issue[0].diagnostics).toMatch(/^Not confirmed: .* may or may not be stored\. Send it again as it is: readings already stored are answered, not stored twice\.$/);
    expect(entries.filter((e) => e.response.status === '201 Created')).toHaveLength(75);

    // Wait for the slice to land (6 s after it started; later on a busy machine), not for a time.
    await until(async () => (await storedOf(batch)).length === batch.resources.length);
    useObservationStore(twin);
    const second = await upload(world.patient.token, batch.resources);
    // The slice that was not confirmed did land: its readings are found, as are the others.
    expect(statusesOf(second).every((s) => s === '200 OK')).toBe(true);
    expect(await storedOf(batch)).toHaveLength(batch.resources.length);
  });

  it('a batch of which nothing could start before its deadline is a whole 503 with Retry-After, and stores nothing', async () => {
    useObservationStore(slowed(twin, ['insert'], () => 5000));
    // The pace learns what a slice takes here from one that lands after its request's deadline.
    await postOnTime(readings(25, 3).resources);
    await settle(1000);
    // 1.5 s of work left: less than a slice is now expected to take, so none is started.
    const batch = readings(50, 4);
    const res = await call('POST', '/FHIR/R5/', { token: world.patient.token, body: batchOf(batch.resources), timeoutMs: 3000 });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe(String(RETRY_AFTER_SECONDS));
    expect(res.json.issue[0]).toMatchObject({ severity: 'error', code: 'timeout', diagnostics: expect.stringMatching(/^None of the 50 entries was processed/) });
    await settle(500);
    expect(await storedOf(batch)).toEqual([]);
  });
});
