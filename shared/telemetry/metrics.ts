/**
 * The service's own metrics as CloudWatch Embedded Metric Format lines through Powertools Metrics:
 * one Metrics per endpoint family (dimension `service`), flushed after each request by its middy
 * middleware. Domain and handler code see only `Meter`, so they never depend on how metrics leave.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { METRICS_NAMESPACE, type MetricName } from './names';
import { rootLogger } from './logger';

export interface Meter {
  /** Adds `value` (default 1) to a count of this request. */
  count(name: MetricName, value?: number): void;
  /** Adds to a count that is also broken down by HTTP status (dimension set `[service, status]`). */
  countByStatus(name: MetricName, status: number, value?: number): void;
}

/** A request without application metrics is normal here (a token call, a health check): no warning for it. */
const metricsLog = {
  warn: (...args: unknown[]) => {
    const [first] = args;
    if (typeof first === 'string' && first.startsWith('No application metrics to publish')) return;
    rootLogger().warn(String(first), { detail: args.slice(1).map(String) });
  },
  error: (...args: unknown[]) => rootLogger().error(String(args[0])),
  info: () => undefined,
  debug: () => undefined,
  trace: () => undefined,
};

const families = new Map<string, Metrics>();

/** The Metrics of an endpoint family, made once per process. */
export function metricsFor(family: string): Metrics {
  let metrics = families.get(family);
  if (!metrics) {
    metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: family, logger: metricsLog });
    families.set(family, metrics);
  }
  return metrics;
}

export function meterOf(metrics: Metrics): Meter {
  return {
    count: (name, value = 1) => {
      if (value > 0) metrics.addMetric(name, MetricUnit.Count, value);
    },
    countByStatus: (name, status, value = 1) => {
      if (value <= 0) return;
      metrics.addMetric(name, MetricUnit.Count, value);
      // Its own line with one more dimension: the request's other metrics keep the plain `[service]` set.
      const single = metrics.singleMetric();
      single.addDimension('status', String(status));
      single.addMetric(name, MetricUnit.Count, value);
    },
  };
}
