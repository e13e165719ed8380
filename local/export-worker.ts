/**
 * The export worker under `npm start`: the very handler module the worker Lambda runs
 * (functions/export-worker/handler.ts), fed by a queue in this process instead of SQS. It delivers
 * each message as SQS would (a record with its receive count), a few at a time, again after a
 * failure (up to the same number of deliveries), and sweeps on a schedule. The queue lives in
 * memory, so at start the sweep hands the parts of every unfinished job out again: a job survives a
 * restart of `npm start` half-way, and a part done twice counts once.
 */
import type { SQSRecord } from 'aws-lambda';
import { config } from '../shared/config';
import { exportStore, useExportStore } from '../shared/export/store/current';
import type { ExportMessage } from '../shared/export/model';
import type { ExportQueue } from '../shared/export/store/port';
import { MAX_RECEIVES } from '../shared/export/worker';
import { rootLogger } from '../shared/telemetry/logger';
import type { WorkerHandler } from '../functions/export-worker/handler';

export interface LocalExportWorker {
  /** Resolves when nothing is queued or running. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/** The sweep's interval: a quarter of the stuck-job limit, at most a minute. */
const sweepInterval = () => Math.min(60_000, (config().exports.stuckAfterSeconds * 1000) / 4);

export function startLocalExportWorker(handler: WorkerHandler, options: { concurrency?: number } = {}): LocalExportWorker {
  const concurrency = options.concurrency ?? config().exports.localWorkers;
  const waiting: Array<{ message: ExportMessage; receives: number }> = [];
  let running = 0;
  let stopped = false;
  let idleWaiters: Array<() => void> = [];
  let sequence = 0;

  const settleIdle = () => {
    if (running > 0 || waiting.length > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    waiters.forEach((resolve) => resolve());
  };

  const record = (message: ExportMessage, receives: number): SQSRecord =>
    ({ messageId: `local-${++sequence}`, body: JSON.stringify(message), attributes: { ApproximateReceiveCount: String(receives) } }) as unknown as SQSRecord;

  const pump = () => {
    while (!stopped && running < concurrency && waiting.length > 0) {
      const next = waiting.shift()!;
      running += 1;
      void (async () => {
        try {
          const result = await handler({ Records: [record(next.message, next.receives)] });
          if (result && result.batchItemFailures.length > 0 && next.receives < MAX_RECEIVES) waiting.push({ message: next.message, receives: next.receives + 1 });
        } catch (error) {
          rootLogger().error('local export worker failed', { error: error instanceof Error ? error.message : String(error) });
        } finally {
          running -= 1;
          pump();
          settleIdle();
        }
      })();
    }
  };

  const queue: ExportQueue = {
    send: async (messages) => {
      waiting.push(...messages.map((message) => ({ message, receives: 1 })));
      setImmediate(pump);
    },
  };
  const previous = useExportStore({ ...exportStore(), queue });

  const sweep = (resume: boolean) =>
    handler({ sweep: true, resume }).catch((error) => rootLogger().error('local export sweep failed', { error: error instanceof Error ? error.message : String(error) }));
  void sweep(true);
  const timer = setInterval(() => void sweep(false), sweepInterval());
  timer.unref();

  return {
    idle: () => new Promise<void>((resolve) => {
      idleWaiters.push(resolve);
      setImmediate(settleIdle);
    }),
    async stop() {
      stopped = true;
      clearInterval(timer);
      waiting.length = 0;
      while (running > 0) await new Promise((r) => setTimeout(r, 20));
      useExportStore(previous);
    },
  };
}
