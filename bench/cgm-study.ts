/**
 * `npm run bench -- cgm-study`: a study's glucose sensor table (`Group/<study>/$cgm-summary`) over
 * the default period (the last 14 days ending now) for a study of `BENCH_STUDY_PARTICIPANTS`
 * (1,000) enrolled, consenting participants with `BENCH_STUDY_DAYS` (14) days of readings every 5
 * minutes (288 a day), on DynamoDB Local in memory. Target: everyone's metrics in under 5 s.
 *
 * The participants differ: four clocks (Los Angeles, Paris, Kolkata, UTC), every fourth sending
 * mmol/L, levels from mostly in range to mostly high, and every tenth wearing the sensor only the
 * last 6 days, every tenth (another) taking it off 8 hours a night, so a share of the rows answers
 * "not sufficient" (too few days, sensor active under 70%).
 *
 * How the readings are seeded, and why it is what an upload leaves: 4 million readings through
 * `POST /FHIR/R5/` would take hours here (the `cgm` bench stores 250-460 a second), so
 * - participant 1's readings go through `POST /FHIR/R5/` in batches of 500 (the write path itself:
 *   its blocks, claims, id ranges and day summaries with their digests);
 * - participant 2 gets the very same payloads, and every other participant its own, written in
 *   process: each reading is what the upload path keeps of its payload (`storedReadingOf`: uuid,
 *   effective time and lifted values, as `native-entry.ts` makes them), the readings are written as
 *   the block store keeps them (`keepAsStored`: each hour's block, a uuid claim a reading, the id
 *   ranges and the code in the patient's code set, by BatchWriteItem) and each day's summary is the
 *   domain's `summariseDayAndHours` of that day's readings (the digest and the hours' digests
 *   included), kept through the summary store, as the upload recomputes a day from its stored rows;
 * - before measuring, participant 2's stored day summaries (each day of the trace), hour digests and
 *   readings of its last 24 hours, as the store reads them back, are compared with participant 1's
 *   (all but the patient, the ids and the time of storing): the bench stops if they differ.
 *
 * Then, through the handler (the answer as API Gateway receives it), `BENCH_STUDY_CALLS` (5) calls
 * as a practitioner of the study's organization after one warm-up: p50 and p99, and the DynamoDB
 * requests and items one call reads (counted on the client's middleware stack).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import pMap from 'p-map';
import { startRuntime } from '../local/runtime';
import { MGDL_PER_MMOLL, type GlucoseUnit } from '../shared/cgm/units';
import { zoneClock, type Clock } from '../shared/cgm/zones';
import type { Id } from '../shared/directory/model';
import type { StoredObservation } from '../shared/observations/model';
import { dayOf } from '../shared/observations/stats/day-summary';
import { allReadings, rowsQuery } from '../shared/observations/stats/keep';
import { observationStore } from '../shared/observations/store/current';
import { summaryStore } from '../shared/observations/store/summary-current';
import { chunksOf } from '../shared/lists';
import { GLUCOSE, installMeter, level, localMinuteOf, metered, sensorPayload } from './cgm';
import { answer, keepAsStored, postBatch, storedReadingOf, world, type World } from './observation-world';
import { median, percentile, printTable, timeOnce } from './table';

const PARTICIPANTS = Number(process.env.BENCH_STUDY_PARTICIPANTS ?? 1000);
const DAYS = Number(process.env.BENCH_STUDY_DAYS ?? 14);
const CALLS = Number(process.env.BENCH_STUDY_CALLS ?? 5);
const EVERY_MINUTES = 5;
const MINUTE = 60_000;
const DAY = 1440 * MINUTE;
const BATCH = 500;
/** Participants written at once (each write itself 8 BatchWriteItems at once). */
const SEED_CONCURRENCY = 4;
const ZONES = ['America/Los_Angeles', 'Europe/Paris', 'Asia/Kolkata', 'UTC'];
const TARGET_MS = 5000;

/** A participant's sensor: their clock, unit, level and wear. */
interface Profile {
  clock: Clock;
  unit: GlucoseUnit;
  /** Their level from the shared day curve: scaled and shifted. */
  scale: number;
  shift: number;
  /** Whether the sensor is worn at an instant. */
  worn: (at: number, localMinute: number) => boolean;
}

function profileOf(p: number, end: number): Profile {
  const lateStart = end - 6 * DAY;
  return {
    clock: zoneClock(ZONES[p % ZONES.length]!)!,
    unit: p % 4 === 3 ? 'mmol/L' : 'mg/dL',
    scale: 0.8 + ((p * 13) % 7) / 10,
    shift: ((p * 37) % 60) - 30,
    worn: p % 10 === 4 ? (at) => at >= lateStart : p % 10 === 7 ? (_at, minute) => minute >= 8 * 60 : () => true,
  };
}

/** The participant's readings' payloads (every 5 minutes the sensor is worn, the `DAYS` before `end`), in time order. */
function payloadsOf(profile: Profile, end: number): string[] {
  const count = (DAYS * DAY) / (EVERY_MINUTES * MINUTE);
  const payloads: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const at = end - (count - i) * EVERY_MINUTES * MINUTE;
    const offset = profile.clock(at);
    const minute = localMinuteOf(at, offset);
    if (!profile.worn(at, minute)) continue;
    const mgdl = Math.max(40, Math.round(level(minute, i) * profile.scale + profile.shift));
    payloads.push(sensorPayload(at, offset, profile.unit === 'mg/dL' ? mgdl : Math.round((mgdl / MGDL_PER_MMOLL) * 10) / 10, profile.unit));
  }
  return payloads;
}

/** The participant's readings kept as an upload keeps them (the header's second way). */
async function storeInProcess(w: World, codeId: Id, patientId: Id, payloads: readonly string[]): Promise<void> {
  const ids = await observationStore().newIds(payloads.length);
  const lastUpdated = new Date().toISOString();
  const readings = payloads.map((data, i) => storedReadingOf({ id: ids[i]!, patientId, codeId, deviceId: w.device, data, lastUpdated }, GLUCOSE));
  await keepAsStored(patientId, GLUCOSE, readings);
}

/** The participant's readings through `POST /FHIR/R5/` (the header's first way). */
async function storeByUpload(w: World, patientId: Id, payloads: readonly string[]): Promise<void> {
  for (const chunk of chunksOf([...payloads], BATCH)) {
    const resources = chunk.map((data) => ({
      resourceType: 'Observation',
      status: 'final',
      code: { coding: [{ system: 'https://w3id.org/openmhealth', code: GLUCOSE }] },
      subject: { reference: `Patient/${patientId}` },
      device: { reference: `Device/${w.device}` },
      valueAttachment: { contentType: 'application/json', data },
    }));
    await postBatch(w, resources, '201 Created');
  }
}

/** What two patients' stores hold alike when their readings are the same payloads: day summaries, hour digests and readings, without the patient and the ids. */
async function keptOf(patientId: Id, codeId: Id, end: number): Promise<unknown> {
  const days = Array.from({ length: DAYS + 1 }, (_, k) => dayOf(end - (DAYS - k) * DAY));
  const summaries = await Promise.all(days.map((day) => summaryStore().day(patientId, codeId, day)));
  const hours = days.flatMap((day) => Array.from({ length: 24 }, (_, h) => `${day}T${String(h).padStart(2, '0')}`));
  const hourDigests = (await summaryStore().hours(patientId, codeId, hours, true)).sort((a, b) => (a.hour < b.hour ? -1 : 1));
  const readings = await allReadings(rowsQuery(patientId, codeId, { from: end - DAY, to: end }));
  return {
    summaries: summaries.map((s) => s && { ...s, patientId: 0 }),
    hourDigests,
    readings: readings.map(({ id: _id, patientId: _patient, lastUpdated: _at, ...rest }: StoredObservation) => rest),
  };
}

export async function cgmStudyBench(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-cgm-study-'));
  const runtime = await startRuntime({ dataDir, port: 0, seed: false, inMemory: true });
  try {
    installMeter();
    const w = await world([GLUCOSE]);
    const codeId = w.codes.find((c) => c.code === GLUCOSE)!.id;
    const end = Math.floor(Date.now() / (EVERY_MINUTES * MINUTE)) * EVERY_MINUTES * MINUTE;

    const t0 = performance.now();
    const patients = await pMap(Array.from({ length: PARTICIPANTS }), () => w.newPatient(), { concurrency: 8 });
    const enrolSeconds = (performance.now() - t0) / 1000;

    const t1 = performance.now();
    const [first, twin, ...rest] = patients as [Id, Id, ...Id[]];
    const firstPayloads = payloadsOf(profileOf(0, end), end);
    await storeByUpload(w, first, firstPayloads);
    const uploadSeconds = (performance.now() - t1) / 1000;
    await storeInProcess(w, codeId, twin, firstPayloads);
    if (!isDeepStrictEqual(await keptOf(first, codeId, end), await keptOf(twin, codeId, end))) {
      throw new Error('the readings written in process are not kept as the upload keeps the same payloads');
    }

    const t2 = performance.now();
    let readings = 2 * firstPayloads.length;
    await pMap(
      rest,
      async (patientId, k) => {
        const payloads = payloadsOf(profileOf(k + 2, end), end);
        readings += payloads.length;
        await storeInProcess(w, codeId, patientId, payloads);
      },
      { concurrency: SEED_CONCURRENCY },
    );
    const seedSeconds = (performance.now() - t2) / 1000;
    printTable(`Seeded: ${PARTICIPANTS} participants x ${DAYS} days, ${readings.toLocaleString('en-US')} readings`, [
      {
        'enrolled (s)': enrolSeconds.toFixed(1),
        'participant 1 uploaded (s)': uploadSeconds.toFixed(1),
        'the rest in process (s)': seedSeconds.toFixed(1),
        'in process readings/s': ((readings - 2 * firstPayloads.length) / seedSeconds).toFixed(0),
      },
    ]);

    w.practitioner = await w.practitionerToken();
    const url = `/FHIR/R5/Group/${w.study}/$cgm-summary`;
    const call = async () => {
      const res = await answer('GET', url, w.practitioner);
      if (res.status !== 200) throw new Error(`Group/$cgm-summary failed: ${res.text.slice(0, 300)}`);
      return res;
    };
    const warm = JSON.parse((await call()).text) as { parameter: Array<{ name: string; part?: Array<{ name: string; valueBoolean?: boolean }> }> };
    const rows = warm.parameter.filter((p) => p.name === 'participant');
    const sufficient = rows.filter((r) => r.part!.some((part) => part.name === 'sufficient' && part.valueBoolean)).length;
    const reads = await metered(call);
    const times: number[] = [];
    for (let i = 0; i < CALLS; i += 1) times.push(await timeOnce(call));
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    printTable(`Group/$cgm-summary through the handler, the last 14 days ending now (${CALLS} calls after a warm-up; DynamoDB Local in memory; load ${load})`, [
      {
        participants: rows.length,
        'sufficient / not': `${sufficient} / ${rows.length - sufficient}`,
        'p50 ms': median(times).toFixed(0),
        'p99 ms': percentile(times, 99).toFixed(0),
        'requests / items read': `${reads.requests} / ${reads.items}`,
        requests: [...reads.commands].map(([name, n]) => `${name} x${n}`).join(', '),
        [`every call under ${TARGET_MS / 1000} s`]: Math.max(...times) < TARGET_MS ? 'met' : 'missed',
      },
    ]);
    console.log(`\ncommand: BENCH_STUDY_PARTICIPANTS=${PARTICIPANTS} BENCH_STUDY_DAYS=${DAYS} BENCH_STUDY_CALLS=${CALLS} npm run bench -- cgm-study`);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
