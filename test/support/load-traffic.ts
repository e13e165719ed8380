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
  /** Retries posted while the batch's first post was still unanswered. */
  overlapping: number;
  /** The first few answers that were neither a success nor a 429: status, time taken, start of the body. */
  failures: string[];
}

/** A batch of a loaded 2-core machine may wait long; a device would wait too rather than give up. */
const REQUEST_TIMEOUT_S = 120;

const upload = (batch: PlannedBatch): Request => ({
  method: 'POST',
  path: '/FHIR/R5/',
  headers: { authorization: `Bearer ${batch.patient.token}`, 'content-type': 'application/fhir+json' },
  body: batch.body,
});

type Tally = Pick<TrafficResult, 'created' | 'existing' | 'overlapping' | 'failures'>;

const emptyTally = (): Tally => ({ created: 0, existing: 0, overlapping: 0, failures: [] });

export const FAILURES_KEPT = 5;

export const isRateLimited = (status: number | string) => String(status) === '429';
/** Neither a success nor the rate limiter. */
export const isFailure = (status: number | string) => !String(status).startsWith('2') && !isRateLimited(status);
/** Refused as the client's fault (other than the rate limiter): a request the service should have taken. */
export const isClientError = (status: number | string) => String(status).startsWith('4') && !isRateLimited(status);
export const isServerError = (status: number | string) => String(status).startsWith('5');

/** A failed answer as kept for the report. */
export const failureNote = (status: number, ms: number, body: string) => `${status} after ${(ms / 1000).toFixed(1)} s: ${body.slice(0, 200)}`;

/** Counts what an answer to a batch stored, and keeps a failed answer for the report. */
function tallyAnswer(tally: Tally, status: number, body: string, sentAt: number, answered: { created: number; existing: number }): void {
  tally.created += answered.created;
  tally.existing += answered.existing;
  if (isFailure(status) && tally.failures.length < FAILURES_KEPT) tally.failures.push(failureNote(status, performance.now() - sentAt, body));
}

/** Runs one autocannon instance to its count, or stops it at `seconds`. */
function run(kind: TrafficResult['kind'], options: Parameters<typeof autocannon>[0], seconds: number, tally: Tally): Promise<TrafficResult> {
  return new Promise((resolve, reject) => {
    const instance = autocannon({ timeout: REQUEST_TIMEOUT_S, ...options }, (error, result: Result) => {
      clearTimeout(limit);
      if (error) return reject(error);
      const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, Number(count)]));
      const requests = Object.values(statuses).reduce((a, b) => a + b, 0);
      resolve({ kind, requests, seconds: result.duration, statuses, errors: result.errors, p50: result.latency.p50, p99: result.latency.p99, ...tally });
    });
    const limit = setTimeout(() => instance.stop(), seconds * 1000);
  });
}

/** One connection per device, posting its batches in order; a lost answer is recorded as never seen. */
export function deviceTraffic(url: string, plan: UploadPlan, ledger: LoadLedger, seconds: number, onFirstAnswer: () => void): Promise<TrafficResult> {
  const tally = emptyTally();
  let next = 0;
  const setupClient = (client: Client) => {
    const batches = plan.devices[next++]!;
    let sent = 0;
    let current: PlannedBatch;
    let sentAt = 0;
    client.setRequests([
      {
        setupRequest: () => {
          current = batches[sent++]!;
          sentAt = performance.now();
          ledger.postingFirst(current);
          return upload(current);
        },
        onResponse: (status, body) => {
          ledger.firstPostAnswered(current);
          tallyAnswer(tally, status, body, sentAt, ledger.answer(current, status, body, current.retry !== 'lost'));
          onFirstAnswer();
        },
      },
    ]);
  };
  const batches = plan.devices.reduce((n, d) => n + d.length, 0);
  return run('devices', { url, connections: plan.devices.length, amount: batches, setupClient }, seconds, tally);
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
  const tally = emptyTally();
  const due = [...plan.retries];
  const setupClient = (client: Client) => {
    let current: PlannedBatch;
    let sentAt = 0;
    client.setRequests([
      {
        setupRequest: () => {
          current = nextRetry(due, ledger);
          sentAt = performance.now();
          if (ledger.firstPost(current) === 'in flight') tally.overlapping += 1;
          ledger.postingAgain(current);
          return upload(current);
        },
        onResponse: (status, body) => {
          tallyAnswer(tally, status, body, sentAt, ledger.answer(current, status, body, true));
        },
      },
    ]);
  };
  const count = plan.retries.length;
  return run('retries', { url, connections: Math.min(connections, count), amount: count, setupClient }, seconds, tally);
}

/** Apps reading their patient's latest readings back, a page at a time, each with its patient's token. */
export function searchTraffic(url: string, fleet: Fleet, connections: number, searches: number, seconds: number): Promise<TrafficResult> {
  const tally = emptyTally();
  let turn = 0;
  const setupClient = (client: Client) => {
    let sentAt = 0;
    client.setRequests([
      {
        setupRequest: () => {
          const patient = fleet.patients[turn++ % fleet.patients.length]!;
          sentAt = performance.now();
          return { method: 'GET', path: `/FHIR/R5/Observation?patient=${patient.id}&_count=20`, headers: { authorization: `Bearer ${patient.token}` } };
        },
        onResponse: (status, body) => tallyAnswer(tally, status, body, sentAt, { created: 0, existing: 0 }),
      },
    ]);
  };
  return run('searches', { url, connections, amount: searches, setupClient }, seconds, tally);
}
