/**
 * `npm run bench -- cgm`: a glucose sensor's summary (`Patient/<id>/$cgm-summary`) of one patient
 * with 90 days of readings every 5 minutes (288 a day, 25,920; `BENCH_CGM_DAYS` changes the days),
 * stored through POST /FHIR/R5/ (batches of 500, as a phone relays a sensor's backlog, each keeping
 * its days' summaries and digests) on DynamoDB Local (in memory). The readings' clock is Los Angeles
 * time, so the trace crosses changes of daylight saving time.
 *
 * Through the handler (the answer as API Gateway receives it), for the last 14 days ending now (the
 * default: both edges partial days, their whole hours from hour digests), 14 whole local days named by date on
 * the patient's time zone, and the 90 days: p50 and p99 over `BENCH_CGM_CALLS` calls, and the
 * DynamoDB requests and items one call reads (counted on the client's middleware stack), against
 * what summarising from every reading of the period reads (the readings of the period, decoded and
 * digested: the same figures, as the tests hold them).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { startRuntime } from '../local/runtime';
import type { Id } from '../shared/directory/model';
import { summariseReadings } from '../shared/cgm/metrics';
import { dateTimeAt } from '../shared/cgm/time-of-day';
import type { GlucoseUnit } from '../shared/cgm/units';
import { zoneClock } from '../shared/cgm/zones';
import { sensorReadingsOf } from '../shared/observations/cgm/readings';
import { resolvePeriod } from '../shared/observations/cgm/request';
import { allReadings, rowsQuery } from '../shared/observations/stats/keep';
import { encodePayload, samplePayload } from '../shared/omh/samples';
import { chunksOf } from '../shared/lists';
import { dynamo } from '../shared/store/clients';
import { answer, postBatch, world, type World } from './observation-world';
import { median, percentile, printTable, timeOnce } from './table';

export const GLUCOSE = 'omh:blood-glucose:4.0';
const DAYS = Number(process.env.BENCH_CGM_DAYS ?? 90);
const CALLS = Number(process.env.BENCH_CGM_CALLS ?? 50);
const EVERY_MINUTES = 5;
const BATCH = 500;
const MINUTE = 60_000;
const DAY = 1440 * MINUTE;
const ZONE = 'America/Los_Angeles';

/** A sensor's level: fasting about 95 mg/dL, rising after three meals, lower at night, with noise (whole mg/dL, as sensors report). */
export function level(localMinute: number, i: number): number {
  const meal = (at: number) => 90 * Math.exp(-(((localMinute - at - 60) / 50) ** 2));
  const night = localMinute < 360 ? -20 * Math.sin((Math.PI * localMinute) / 360) : 0;
  return Math.max(40, Math.round(95 + meal(7 * 60) + meal(12.5 * 60) + meal(19 * 60) + night + ((i * 7919) % 21) - 10));
}

/** The minute of the local day of an instant on a clock `offsetMinutes` from UTC. */
export const localMinuteOf = (at: number, offsetMinutes: number): number => Math.floor((((at + offsetMinutes * MINUTE) % DAY) + DAY) % DAY / MINUTE);

/** A sensor reading's payload (base64 JSON, as `valueAttachment.data`): `value` in `unit` at `at`, written on the clock `offsetMinutes` from UTC. */
export function sensorPayload(at: number, offsetMinutes: number, value: number, unit: GlucoseUnit = 'mg/dL'): string {
  return encodePayload(
    samplePayload(GLUCOSE, {
      uuid: randomUUID(),
      members: {
        blood_glucose: { value, unit },
        effective_time_frame: { date_time: dateTimeAt(at, offsetMinutes) },
        specimen_source: 'interstitial fluid',
        temporal_relationship_to_meal: undefined,
        temporal_relationship_to_sleep: undefined,
      },
    }),
  );
}

function sensorReading(w: World, patientId: Id, at: number, offsetMinutes: number, i: number) {
  return {
    resourceType: 'Observation',
    status: 'final',
    code: { coding: [{ system: 'https://w3id.org/openmhealth', code: GLUCOSE }] },
    subject: { reference: `Patient/${patientId}` },
    device: { reference: `Device/${w.device}` },
    valueAttachment: { contentType: 'application/json', data: sensorPayload(at, offsetMinutes, level(localMinuteOf(at, offsetMinutes), i)) },
  };
}

/** The DynamoDB requests (by command) and items returned while `op` runs. */
export interface Reads {
  requests: number;
  items: number;
  commands: Map<string, number>;
}
let meter: Reads | undefined;
const metering = new WeakSet<object>();
/** Counts what the store client sends while `metered` runs (once per client: a second bench of the same process shares it). */
export function installMeter(): void {
  const client = dynamo();
  if (metering.has(client)) return;
  metering.add(client);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      if (meter) {
        const name = String(context.commandName).replace(/Command$/, '');
        meter.commands.set(name, (meter.commands.get(name) ?? 0) + 1);
        const output = (out as { output?: { Items?: unknown[]; Item?: unknown; Responses?: Record<string, unknown[]> } }).output;
        meter.requests += 1;
        meter.items += output?.Items?.length ?? (output?.Item ? 1 : 0) + Object.values(output?.Responses ?? {}).reduce((n, items) => n + items.length, 0);
      }
      return out;
    },
    { step: 'build', name: 'cgmBenchMeter' },
  );
}

export async function metered(op: () => Promise<unknown>): Promise<Reads> {
  meter = { requests: 0, items: 0, commands: new Map() };
  try {
    await op();
    return meter;
  } finally {
    meter = undefined;
  }
}

export async function cgmBench(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-cgm-'));
  const runtime = await startRuntime({ dataDir, port: 0, seed: false, inMemory: true });
  try {
    installMeter();
    const w = await world([GLUCOSE]);
    const glucose = w.codes.find((c) => c.code === GLUCOSE)!;
    const patientId = await w.newPatient();
    const clock = zoneClock(ZONE)!;
    const end = Math.floor(Date.now() / (EVERY_MINUTES * MINUTE)) * EVERY_MINUTES * MINUTE;
    const count = (DAYS * DAY) / (EVERY_MINUTES * MINUTE);
    const t0 = performance.now();
    for (const indexes of chunksOf(Array.from({ length: count }, (_, i) => i), BATCH)) {
      await postBatch(
        w,
        indexes.map((i) => {
          const at = end - (count - i) * EVERY_MINUTES * MINUTE;
          return sensorReading(w, patientId, at, clock(at), i);
        }),
        '201 Created',
      );
    }
    const storeSeconds = (performance.now() - t0) / 1000;
    w.practitioner = await w.practitionerToken();

    // 14 whole local days ending yesterday, named by date on the patient's time zone.
    const yesterday = new Date(end + clock(end) * MINUTE - DAY).toISOString().slice(0, 10);
    const fortnightStart = new Date(Date.parse(`${yesterday}T00:00:00Z`) - 13 * DAY).toISOString().slice(0, 10);
    const periods: Array<{ name: string; query: string; days: number }> = [
      { name: 'last 14 days ending now (default)', query: '', days: 14 },
      { name: '14 local days by date', query: `?start=${fortnightStart}&end=${yesterday}&timeZone=${ZONE}`, days: 14 },
      { name: `the ${DAYS} days of the trace`, query: `?start=${new Date(end - DAYS * DAY).toISOString()}&end=${new Date(end - 1).toISOString()}`, days: DAYS },
    ];
    const rows: Array<Record<string, string | number>> = [];
    for (const p of periods) {
      const url = `/FHIR/R5/Patient/${patientId}/$cgm-summary${p.query}`;
      const first = await answer('GET', url, w.practitioner);
      if (first.status !== 200) throw new Error(`$cgm-summary failed: ${first.text.slice(0, 300)}`);
      const answered = JSON.parse(first.text) as { entry: Array<{ resource: { effectivePeriod: { start: string; end: string }; valueQuantity?: { value: number } } }> };
      const { start: stated, end: statedEnd } = answered.entry[0]!.resource.effectivePeriod;
      const reads = await metered(() => answer('GET', url, w.practitioner));
      for (let i = 0; i < 5; i += 1) await answer('GET', url, w.practitioner);
      const times: number[] = [];
      for (let i = 0; i < CALLS; i += 1) times.push(await timeOnce(() => answer('GET', url, w.practitioner)));

      // The same period summarised from every reading it holds (what the digests spare).
      // The period the answer states, as the request's own rule reads it.
      const { period } = resolvePeriod({ start: stated, end: statedEnd, timeZone: ZONE }, end);
      const fromEvery = async () => summariseReadings(sensorReadingsOf(await allReadings(rowsQuery(patientId, glucose.id, period)), GLUCOSE), { period });
      const rawReads = await metered(fromEvery);
      const rawTimes: number[] = [];
      for (let i = 0; i < Math.min(CALLS, 10); i += 1) rawTimes.push(await timeOnce(fromEvery));
      rows.push({
        period: p.name,
        'readings in it': p.days * (1440 / EVERY_MINUTES),
        'p50 ms': median(times).toFixed(1),
        'p99 ms': percentile(times, 99).toFixed(1),
        'requests / items read': `${reads.requests} / ${reads.items}`,
        requests: [...reads.commands].map(([name, n]) => `${name} x${n}`).join(', '),
        'from every reading: p50 ms': median(rawTimes).toFixed(1),
        'from every reading: requests / items': `${rawReads.requests} / ${rawReads.items}`,
        'days of wear': answered.entry[5]!.resource.valueQuantity?.value ?? '-',
      });
    }
    printTable(`Stored: ${count} readings (${DAYS} days, every ${EVERY_MINUTES} minutes) through POST /FHIR/R5/ in ${storeSeconds.toFixed(1)} s (${(count / storeSeconds).toFixed(0)} readings/s)`, [{ readings: count, days: DAYS, 'store: s': storeSeconds.toFixed(1) }]);
    printTable(`Patient/$cgm-summary through the handler (${CALLS} calls each; DynamoDB Local in memory)`, rows);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
