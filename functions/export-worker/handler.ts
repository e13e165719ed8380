/**
 * Lambda of the export worker (docs/export.md): fed by the export queue (SQS, one message at a
 * time, a dead-letter queue after `MAX_RECEIVES` deliveries) and by a schedule (the sweep). The same
 * module runs locally under `npm start` (local/export-worker.ts), fed by the local runtime's queue.
 */
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { handleMessage, parseMessage, sweepExports } from '../../shared/export/worker';
import type { Stores } from '../../shared/stores';
import { useStores } from '../../shared/stores';
import { loggerFor } from '../../shared/telemetry/logger';
import { meterOf, metricsFor } from '../../shared/telemetry/metrics';
import { EXPORT_WORKER as WORKER, METRIC } from '../../shared/telemetry/names';

/** The scheduled sweep's event (EventBridge), or any event that asks for a sweep. */
export interface SweepEvent {
  sweep: true;
  /** After a restart of the local runtime: hand out the unfinished parts again. */
  resume?: boolean;
}

export type WorkerEvent = SQSEvent | SweepEvent;

export type WorkerHandler = (event: WorkerEvent, context?: Partial<Context>) => Promise<SQSBatchResponse | void>;

const isSweep = (event: WorkerEvent): event is SweepEvent => (event as SweepEvent).sweep === true;

export const handler: WorkerHandler = async (event) => {
  const log = loggerFor(WORKER);
  const metrics = metricsFor(WORKER);
  const meter = meterOf(metrics);
  try {
    if (isSweep(event)) {
      const swept = await sweepExports({ resume: event.resume === true });
      meter.count(METRIC.exportJobsStuck, swept.stuck);
      // Always a data point: the stuck-job alarm then reads 0, not missing data, on a quiet sweep.
      if (swept.stuck === 0) metrics.addMetric(METRIC.exportJobsStuck, 'Count', 0);
      log.info('export sweep', { ...swept });
      return;
    }
    const failures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records ?? []) {
      const message = parseMessage(record.body);
      if (!message) {
        log.warn('export worker dropped a message it does not understand', { messageId: record.messageId });
        continue;
      }
      try {
        await handleMessage(message, Number(record.attributes?.ApproximateReceiveCount ?? 1), log);
        if (message.kind === 'part') meter.count(METRIC.exportPartsDone);
      } catch {
        meter.count(METRIC.exportWorkFailures);
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  } finally {
    metrics.publishStoredMetrics();
  }
};

/** The worker on the given stores (installed for the whole process), or on the installed ones. */
export function buildWorker(stores?: Stores): WorkerHandler {
  if (stores) useStores(stores);
  return handler;
}
