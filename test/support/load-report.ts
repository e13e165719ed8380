/** A load run's report as table rows and as the one line to quote (`load-run.ts`). */
import type { LoadReport, PhaseReport } from './load-run';
import { isClientError, isRateLimited, isServerError, type TrafficResult } from './load-traffic';

export { isClientError, isRateLimited, isServerError };

const MB = 1024 * 1024;
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** Answers of a status class (`'4'` for 4xx) or of one status, over traffic results. */
export function answers(traffic: ReadonlyArray<Pick<TrafficResult, 'statuses'>>, status: (code: string) => boolean): number {
  return sum(traffic.flatMap((t) => Object.entries(t.statuses).filter(([code]) => status(code)).map(([, n]) => n)));
}


export function allTraffic(report: LoadReport): TrafficResult[] {
  return report.phases.flatMap((p) => p.traffic);
}

/** One row per phase and kind of connection. */
export function trafficRows(report: LoadReport): Array<Record<string, string | number>> {
  return report.phases.flatMap((p) =>
    p.traffic.map((t) => ({
      phase: p.name,
      connections: t.kind,
      answers: t.requests,
      'req/s': (t.requests / p.seconds).toFixed(1),
      'readings/s': t.kind === 'searches' ? '' : ((t.created + t.existing) / p.seconds).toFixed(0),
      'p50 ms': t.p50.toFixed(0),
      'p99 ms': t.p99.toFixed(0),
      'rate-limited (429)': answers([t], isRateLimited),
      'other 4xx': answers([t], isClientError),
      '5xx': answers([t], isServerError),
      'no answer': t.errors,
      'phase s': p.seconds.toFixed(1),
      'gateway peak RSS MB': (p.memory.sampledPeak / MB).toFixed(0),
    })),
  );
}

function phaseLine(p: PhaseReport): string {
  const requests = sum(p.traffic.map((t) => t.requests));
  const readings = sum(p.traffic.map((t) => t.created + t.existing));
  const latency = (kind: TrafficResult['kind']) => {
    const t = p.traffic.find((x) => x.kind === kind);
    return t ? ` ${kind === 'searches' ? 'search' : 'upload'} p50/p99 ${t.p50.toFixed(0)}/${t.p99.toFixed(0)} ms` : '';
  };
  const uploading = readings > 0 ? ` (${(readings / p.seconds).toFixed(0)} readings/s)` : '';
  return `${p.name} ${(requests / p.seconds).toFixed(1)} req/s${uploading}${latency('devices')}${latency('searches')}`;
}

/** Failed answers kept by the run, for a message. */
export function failureSamples(report: LoadReport): string[] {
  return [...allTraffic(report).flatMap((t) => t.failures.map((f) => `${t.kind}: ${f}`)), ...report.settle.failures.map((f) => `settle: ${f}`)];
}

/** How the run's batches were retried (`load-plan.ts`). */
function retried(o: LoadReport['options']): string {
  const which = (o.retryEvery ?? 2) === 2 ? 'every other batch' : `every ${o.retryEvery}rd batch`;
  return o.retries === 'raced' ? `${which} raced by its retry after a lost answer` : `${which} retried: half re-sent after its answer, half after a lost one`;
}

/** The line to quote. */
export function summaryLine(report: LoadReport): string {
  const { count } = report;
  const o = report.options;
  const traffic = [...allTraffic(report), { statuses: report.settle.statuses }];
  const retries = allTraffic(report).filter((t) => t.kind === 'retries');
  return [
    `load: ${report.devices} devices x ${o.batches} batch${o.batches === 1 ? '' : 'es'} of ${o.readings} readings a phase (${retried(o)}), ${o.searchConnections} search connections, phases ${o.phases.join(' + ')}`,
    report.phases.map(phaseLine).join('; '),
    `gateway RSS ${(report.gatewayStartRss / MB).toFixed(0)} MB at the start, peak ${(report.gatewayPeakRss / MB).toFixed(0)} MB`,
    `${count.acknowledged} readings acknowledged, ${count.stored} stored, ${count.duplicates.length} duplicates, ${count.lost.length} lost, ${count.unacknowledged.length} stored unacknowledged`,
    `retries: ${sum(retries.map((t) => t.overlapping))} posted while their first post was unanswered; their readings ${sum(retries.map((t) => t.existing))} found stored, ${sum(retries.map((t) => t.created))} stored by the retry`,
    `${report.settle.batches} batches re-posted by their devices after the phases`,
    `${answers(traffic, isRateLimited)} x 429, ${answers(traffic, isClientError)} x other 4xx, ${answers(traffic, isServerError)} x 5xx`,
  ].join('; ');
}

/**
 * A storm's figures (`npm run bench -- load`): answers of 5xx to whole posts (a batch answered as a
 * whole; entries not done in time come back as 503 entries of a 200 instead), entries answered 503,
 * readings sent again (the devices' own retries and their re-posts of what was not acknowledged),
 * unique readings stored a second from the first post until all were acknowledged, and a batch's
 * time to its answer.
 */
export function stormRow(variant: string, report: LoadReport): Record<string, string | number> {
  const uploads = [...allTraffic(report).filter((t) => t.kind !== 'searches'), { statuses: report.settle.statuses }];
  const devices = allTraffic(report).find((t) => t.kind === 'devices');
  const seconds = sum(report.phases.map((p) => p.seconds)) + report.settle.seconds;
  return {
    variant,
    'whole-request 5xx': answers(uploads, isServerError),
    'entries answered 503': report.entriesUnfinished,
    'readings sent': report.readingsSent,
    're-sent': report.readingsSent - report.count.stored,
    'unique readings/s': (report.count.stored / seconds).toFixed(0),
    'batch p50 ms': devices ? devices.p50.toFixed(0) : '',
    'batch p99 ms': devices ? devices.p99.toFixed(0) : '',
    'until all stored s': seconds.toFixed(0),
  };
}
