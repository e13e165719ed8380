/**
 * The connections of a load run, driven by autocannon against the gateway (loopback): devices
 * posting their batches, retry connections re-posting the batches due again (`load-plan.ts`), and
 * apps searching their patient's readings. Each kind is one autocannon instance, bounded in count
 * (`amount`, spread evenly over its connections) and in time (stopped at `seconds`), and reports its
 * answers by status, its latency and the readings it carried.
 */
import autocannon, { type Client, type Request, type Result } from 'autocannon';
import type { Fleet } from './load-fleet';
import type { LoadLedger } from './load-ledger';
import type { PlannedBatch, UploadPlan } from './load-plan';

export interface TrafficResult {
  kind: 'devices' | 'retries' | 'searches';
  /** Answers received. */
  requests: number;
  /** Seconds the instance ran. */
  seconds: number;
  /** Answers by HTTP status. */
  statuses: Record<string, number>;
  /** Connection errors and timeouts (no answer). */
  errors: number;
  p50: number;
  p99: number;
  /** Readings in the batches answered 200: stored now (201) and already stored (200). */
  created: number;
  existing: number;
}

/** A batch of a loaded 2-core machine may wait long; a device would wait too rather than give up. */
const REQUEST_TIMEOUT_S = 120;

const upload = (batch: PlannedBatch): Request => ({
  method: 'POST',
  path: '/FHIR/R5/',
  headers: { authorization: `Bearer ${batch.patient.token}`, 'content-type': 'application/fhir+json' },
  body: batch.body,
});

/** Runs one autocannon instance to its count, or stops it at `seconds`. */
function run(kind: TrafficResult['kind'], options: Parameters<typeof autocannon>[0], seconds: number, readings: { created: number; existing: number }): Promise<TrafficResult> {
  return new Promise((resolve, reject) => {
    const instance = autocannon({ timeout: REQUEST_TIMEOUT_S, ...options }, (error, result: Result) => {
      clearTimeout(limit);
      if (error) return reject(error);
      const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, Number(count)]));
      const requests = Object.values(statuses).reduce((a, b) => a + b, 0);
      resolve({ kind, requests, seconds: result.duration, statuses, errors: result.errors, p50: result.latency.p50, p99: result.latency.p99, ...readings });
    });
    const limit = setTimeout(() => instance.stop(), seconds * 1000);
  });
}

/** One connection per device, posting its batches in order; a lost answer is recorded as never seen. */
export function deviceTraffic(url: string, plan: UploadPlan, ledger: LoadLedger, seconds: number, onFirstAnswer: () => void): Promise<TrafficResult> {
  const readings = { created: 0, existing: 0 };
  let next = 0;
  const setupClient = (client: Client) => {
    const batches = plan.devices[next++]!;
    let sent = 0;
    let current: PlannedBatch;
    client.setRequests([
      {
        setupRequest: () => {
          current = batches[sent++]!;
          ledger.postingFirst(current);
          return upload(current);
        },
        onResponse: (status, body) => {
          ledger.firstPostAnswered(current);
          const tally = ledger.answer(current, status, body, current.retry !== 'lost');
          readings.created += tally.created;
          readings.existing += tally.existing;
          onFirstAnswer();
        },
      },
    ]);
  };
  const batches = plan.devices.reduce((n, d) => n + d.length, 0);
  return run('devices', { url, connections: plan.devices.length, amount: batches, setupClient }, seconds, readings);
}

/**
 * Picks the retry due most: a lost answer's batch while its first post is in flight (the race),
 * then a re-send whose answer arrived (stored), then the rest as they stand.
 */
function nextRetry(due: PlannedBatch[], ledger: LoadLedger): PlannedBatch {
  const preference: Array<(b: PlannedBatch) => boolean> = [
    (b) => b.retry === 'lost' && ledger.firstPost(b) === 'in flight',
    (b) => b.retry === 'resend' && ledger.firstPost(b) === 'answered',
    (b) => b.retry === 'lost',
    () => true,
  ];
  for (const wanted of preference) {
    const at = due.findIndex(wanted);
    if (at >= 0) return due.splice(at, 1)[0]!;
  }
  throw new Error('no retry left to post');
}

export function retryTraffic(url: string, plan: UploadPlan, ledger: LoadLedger, connections: number, seconds: number): Promise<TrafficResult> {
  const readings = { created: 0, existing: 0 };
  const due = [...plan.retries];
  const setupClient = (client: Client) => {
    let current: PlannedBatch;
    client.setRequests([
      {
        setupRequest: () => {
          current = nextRetry(due, ledger);
          ledger.postingAgain(current);
          return upload(current);
        },
        onResponse: (status, body) => {
          const tally = ledger.answer(current, status, body, true);
          readings.created += tally.created;
          readings.existing += tally.existing;
        },
      },
    ]);
  };
  const count = plan.retries.length;
  return run('retries', { url, connections: Math.min(connections, count), amount: count, setupClient }, seconds, readings);
}

/** Apps reading their patient's latest readings back, a page at a time, each with its patient's token. */
export function searchTraffic(url: string, fleet: Fleet, connections: number, searches: number, seconds: number): Promise<TrafficResult> {
  let turn = 0;
  const search = (): Request => {
    const patient = fleet.patients[turn++ % fleet.patients.length]!;
    return { method: 'GET', path: `/FHIR/R5/Observation?patient=${patient.id}&_count=20`, headers: { authorization: `Bearer ${patient.token}` } };
  };
  const setupClient = (client: Client) => client.setRequests([{ setupRequest: search }]);
  return run('searches', { url, connections, amount: searches, setupClient }, seconds, { created: 0, existing: 0 });
}
