/**
 * A load run against a gateway (`load-gateway.ts`), in phases chosen from three: the devices upload
 * and retry (`upload`), apps search (`search`), and both at once with batches of their own (`mixed`).
 * Then every device retries what it was not told is stored (posted, but the answer lost, refused
 * or cut off by a phase's time limit) until it is, as a device would, and the store is counted
 * against what the devices were told (`load-count.ts`). The gateway's memory is read around each
 * phase. Used by the short test (`test/security/load.test.ts`) and `npm run bench -- load`.
 */
import pMap from 'p-map';
import { countAgainstStore, type LoadCount } from './load-count';
import type { Fleet } from './load-fleet';
import type { GatewayMemory, LoadGateway } from './load-gateway';
import { LoadLedger } from './load-ledger';
import { planUploads, type PlannedBatch, type UploadPlan } from './load-plan';
import { deviceTraffic, FAILURES_KEPT, failureNote, isFailure, retryTraffic, searchTraffic, type TrafficResult } from './load-traffic';

export type PhaseName = 'upload' | 'search' | 'mixed';

export interface LoadOptions {
  /** Phases to run, in this order. */
  phases: readonly PhaseName[];
  /** Batches each device posts in each upload phase (every other one retried, or as `retryEvery` says). */
  batches: number;
  /** Readings a batch. */
  readings: number;
  /** Every how many batches one is retried, and how (`load-plan.ts`). */
  retryEvery?: number;
  retries?: 'alternate' | 'raced';
  retryConnections: number;
  searchConnections: number;
  /** Searches a search phase. */
  searches: number;
  /** Time limit of each phase, whatever is left unsent then. */
  phaseSeconds: number;
}

export interface PhaseReport {
  name: PhaseName;
  seconds: number;
  traffic: TrafficResult[];
  /** The gateway's memory at the end of the phase; `sampledPeak` is the phase's. */
  memory: GatewayMemory;
}

export interface SettleReport {
  /** Batches the devices posted again after the phases. */
  batches: number;
  /** How long the devices took to have everything acknowledged. */
  seconds: number;
  /** Answers to those posts by status. */
  statuses: Record<string, number>;
  /** Batches still not acknowledged in full after every attempt. */
  left: string[];
  /** The first few failed answers (`failureNote`). */
  failures: string[];
}

export interface LoadReport {
  devices: number;
  options: LoadOptions;
  phases: PhaseReport[];
  settle: SettleReport;
  count: LoadCount;
  /** The gateway's RSS before the first phase, and its peak over its whole life (bytes). */
  gatewayStartRss: number;
  gatewayPeakRss: number;
  /** Readings the devices sent, counting every post of a batch. */
  readingsSent: number;
  /** Entries answered 503 inside batch answers. */
  entriesUnfinished: number;
}

/** Rounds of re-posting what is not acknowledged, as a device keeps trying (each waits longer, up to 5 s). */
const SETTLE_ATTEMPTS = 20;
const SETTLE_CONCURRENCY = 8;

export async function runLoad(gateway: LoadGateway, fleet: Fleet, options: LoadOptions): Promise<LoadReport> {
  const ledger = new LoadLedger();
  const limit = options.phaseSeconds;
  const gatewayStartRss = (await gateway.memory()).rss;
  const plan = (phase: string, day: number) =>
    planUploads(fleet, { phase, batches: options.batches, readings: options.readings, from: Date.UTC(2025, 0, day), ...(options.retryEvery ? { retryEvery: options.retryEvery } : {}), ...(options.retries ? { retries: options.retries } : {}) });
  const search = () => searchTraffic(gateway.url, fleet, options.searchConnections, options.searches, limit);
  const traffic: Record<PhaseName, () => Promise<TrafficResult[]>> = {
    upload: () => uploads(gateway.url, plan('upload', 1), ledger, options),
    search: async () => [await search()],
    mixed: async () => {
      const [posts, searches] = await Promise.all([uploads(gateway.url, plan('mixed', 15), ledger, options), search()]);
      return [...posts, searches];
    },
  };
  const phases: PhaseReport[] = [];
  for (const name of options.phases) phases.push(await phase(name, gateway, traffic[name]));
  const settle = await settleAll(gateway.url, ledger);
  const count = await countAgainstStore(ledger, fleet.patients.map((p) => p.id));
  return { devices: fleet.patients.length, options, phases, settle, count, gatewayStartRss, gatewayPeakRss: (await gateway.memory()).maxRss, readingsSent: ledger.readingsSent, entriesUnfinished: ledger.entriesUnfinished };
}

async function phase(name: PhaseName, gateway: LoadGateway, traffic: () => Promise<TrafficResult[]>): Promise<PhaseReport> {
  await gateway.memory(); // restarts the sampled peak
  const started = performance.now();
  const results = await traffic();
  return { name, seconds: (performance.now() - started) / 1000, traffic: results, memory: await gateway.memory() };
}

/** The devices' posts, and the retries, which start once the first answer is in (they follow posts). */
async function uploads(url: string, plan: UploadPlan, ledger: LoadLedger, options: LoadOptions): Promise<TrafficResult[]> {
  let firstAnswer!: () => void;
  const answered = new Promise<void>((resolve) => (firstAnswer = resolve));
  const devices = deviceTraffic(url, plan, ledger, options.phaseSeconds, firstAnswer);
  devices.then(firstAnswer, firstAnswer);
  await answered;
  const retries = retryTraffic(url, plan, ledger, options.retryConnections, options.phaseSeconds);
  return Promise.all([devices, retries]);
}

/** Posts every batch not yet acknowledged in full again, a few rounds, pausing longer each time. */
async function settleAll(url: string, ledger: LoadLedger): Promise<SettleReport> {
  const started = performance.now();
  const statuses: Record<string, number> = {};
  const failures: string[] = [];
  const settled = new Set<PlannedBatch>();
  for (let attempt = 1; attempt <= SETTLE_ATTEMPTS; attempt++) {
    const due = ledger.unacknowledged();
    if (due.length === 0) break;
    if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, 1000 * Math.min(5, attempt)));
    await pMap(
      due,
      async (batch) => {
        settled.add(batch);
        ledger.postingAgain(batch);
        const sentAt = performance.now();
        const res = await fetch(`${url}/FHIR/R5/`, { method: 'POST', headers: { authorization: `Bearer ${batch.patient.token}`, 'content-type': 'application/fhir+json' }, body: batch.body });
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        const body = await res.text();
        if (isFailure(res.status) && failures.length < FAILURES_KEPT) failures.push(failureNote(res.status, performance.now() - sentAt, body));
        ledger.answer(batch, res.status, body, true);
      },
      { concurrency: SETTLE_CONCURRENCY },
    );
  }
  return { batches: settled.size, seconds: (performance.now() - started) / 1000, statuses, left: ledger.unacknowledged().map((b) => b.name), failures };
}
