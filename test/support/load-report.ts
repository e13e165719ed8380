/** A load run's report as table rows and as the one line to quote (`load-run.ts`). */
import type { LoadReport, PhaseReport } from './load-run';
import type { TrafficResult } from './load-traffic';

const MB = 1024 * 1024;
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** Answers of a status class (`'4'` for 4xx) or of one status, over traffic results. */
export function answers(traffic: ReadonlyArray<Pick<TrafficResult, 'statuses'>>, status: (code: string) => boolean): number {
  return sum(traffic.flatMap((t) => Object.entries(t.statuses).filter(([code]) => status(code)).map(([, n]) => n)));
}

export const isRateLimited = (code: string) => code === '429';
/** Neither a success nor the rate limiter. */
export const isFailure = (code: string) => !code.startsWith('2') && code !== '429';

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
      '429': answers([t], isRateLimited),
      'other non-2xx': answers([t], isFailure),
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

/** The line to quote. */
export function summaryLine(report: LoadReport): string {
  const { count } = report;
  const o = report.options;
  const traffic = [...allTraffic(report), { statuses: report.settle.statuses }];
  const retries = allTraffic(report).filter((t) => t.kind === 'retries');
  return [
    `load: ${report.devices} devices x ${o.batches} batches of ${o.readings} readings a phase (every other batch retried: half re-sent after its answer, half after a lost one), ${o.searchConnections} search connections, phases ${o.phases.join(' + ')}`,
    report.phases.map(phaseLine).join('; '),
    `gateway peak RSS ${(report.gatewayPeakRss / MB).toFixed(0)} MB`,
    `${count.acknowledged} readings acknowledged, ${count.stored} stored, ${count.duplicates.length} duplicates, ${count.lost.length} lost, ${count.unacknowledged.length} stored unacknowledged`,
    `retried readings: ${sum(retries.map((t) => t.existing))} found stored, ${sum(retries.map((t) => t.created))} stored by the retry (it overtook its first post)`,
    `${report.settle.batches} batches re-posted after the phases`,
    `${answers(traffic, isRateLimited)} x 429, ${answers(traffic, isFailure)} other failures`,
  ].join('; ');
}
