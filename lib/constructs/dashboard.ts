/**
 * One CloudWatch dashboard, top to bottom in the order an operator asks: is anything in alarm; is
 * the API answering; are the functions healthy; is DynamoDB keeping up; what is the service doing
 * (readings stored and refused, imports, sign-in failures, searches). Every alarmed metric is
 * drawn from the same definition its alarm evaluates (lib/metrics.ts), with the threshold line.
 */
import { Stack } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as cw from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { FAMILIES, type Family } from '../../shared/http/families';
import { TABLES } from '../../shared/store/tables';
import { EXPORT_WORKER, METRIC, type MetricName } from '../../shared/telemetry/names';
import {
  accountConcurrencyPercent,
  apiServerErrorRate,
  everyService,
  IMPORT_FAMILY,
  importFailureRate,
  PERIOD,
  serviceMetric,
  tableSystemErrors,
  tableThrottledRequests,
  UPLOAD_FAMILY,
  uploadRefusalRate,
} from '../metrics';
import { ALARM_THRESHOLDS } from './alarms';
import type { ExportWork } from './export-work';
import type { ServiceTables } from './tables';

export interface ServiceDashboardProps {
  api: apigwv2.HttpApi;
  functions: Record<Family, lambda.Function>;
  exportWork: ExportWork;
  tables: ServiceTables;
  alarms: cw.IAlarm[];
  lambdaConcurrencyQuota: number;
}

const WIDTH = 24;
const line = (value: number, label: string): cw.HorizontalAnnotation => ({ value, label, color: cw.Color.RED });

export class ServiceDashboard extends Construct {
  readonly dashboard: cw.Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const t = ALARM_THRESHOLDS;
    const period = PERIOD.alarm;
    const perFamily = (metric: (fn: lambda.Function, family: Family) => cw.IMetric) => FAMILIES.map((f) => metric(props.functions[f], f));
    const graph = (title: string, left: cw.IMetric[], width: number, annotations: cw.HorizontalAnnotation[] = []) =>
      new cw.GraphWidget({ title, left, width, height: 6, leftAnnotations: annotations });
    const service = (name: MetricName, family: Family) => serviceMetric(name, family, period, name);

    this.dashboard = new cw.Dashboard(this, 'dashboard', {
      dashboardName: Stack.of(this).stackName,
      widgets: [
        [new cw.AlarmStatusWidget({ title: 'Alarms', alarms: props.alarms, width: WIDTH, height: 4 })],
        [
          graph('API requests', [props.api.metricCount({ period, statistic: cw.Stats.SUM }), props.api.metricClientError({ period }), props.api.metricServerError({ period })], 8),
          graph('API 5xx (%)', [apiServerErrorRate(props.api, period)], 8, [line(t.api5xxPercent, 'alarm')]),
          graph('API latency (ms)', [props.api.metricLatency({ period, statistic: cw.Stats.p(50) }), props.api.metricLatency({ period, statistic: cw.Stats.p(99) })], 8),
        ],
        [
          graph('Invocations', perFamily((fn, f) => fn.metricInvocations({ period, label: f })), 6),
          graph('Errors', perFamily((fn, f) => fn.metricErrors({ period, label: f })), 6),
          graph('Throttles', perFamily((fn, f) => fn.metricThrottles({ period, label: f })), 6),
          graph('Duration p99 (ms)', perFamily((fn, f) => fn.metricDuration({ period, statistic: cw.Stats.p(99), label: f })), 6),
        ],
        [
          graph('Concurrent executions', perFamily((fn, f) => fn.metric('ConcurrentExecutions', { period: PERIOD.concurrency, statistic: cw.Stats.MAXIMUM, label: f })), 12),
          graph('Account concurrency claimed (%)', [accountConcurrencyPercent(props.lambdaConcurrencyQuota, period)], 12, [line(t.accountConcurrencyPercent, 'alarm')]),
        ],
        [
          graph('DynamoDB read units', TABLES.map((d) => props.tables[d.id].metricConsumedReadCapacityUnits({ period, label: d.id })), 6),
          graph('DynamoDB write units', TABLES.map((d) => props.tables[d.id].metricConsumedWriteCapacityUnits({ period, label: d.id })), 6),
          graph('DynamoDB throttled requests', TABLES.map((d) => tableThrottledRequests(props.tables[d.id], d.id, period)), 6),
          graph('DynamoDB system errors', TABLES.map((d) => tableSystemErrors(props.tables[d.id], d.id, period)), 6),
        ],
        [
          graph('Readings', [service(METRIC.readingsStored, UPLOAD_FAMILY), service(METRIC.readingsDuplicate, UPLOAD_FAMILY), service(METRIC.uploadEntriesRefused, UPLOAD_FAMILY)], 8),
          graph('Upload entries refused (%)', [uploadRefusalRate(PERIOD.rate)], 8, [line(t.uploadRefusalPercent, 'alarm')]),
          graph('Upload entries refused, by family and status', [everyService(METRIC.uploadEntriesRefused, period, true)], 8),
        ],
        [
          graph(
            'R4 import entries',
            [METRIC.importEntriesCreated, METRIC.importEntriesWithLoss, METRIC.importEntriesFailed, METRIC.importFieldsDropped].map((m) => service(m, IMPORT_FAMILY)),
            8,
          ),
          graph('R4 import entries failed (%)', [importFailureRate(PERIOD.rate)], 8, [line(t.importFailurePercent, 'alarm')]),
          graph('Auxiliary writes', [everyService(METRIC.auxiliaryWrites, period)], 8),
        ],
        [
          graph('Export work', [METRIC.exportPartsDone, METRIC.exportWorkFailures, METRIC.exportJobsStuck].map((m) => serviceMetric(m, EXPORT_WORKER, period, m)), 8, [line(t.exportStuckJobs, 'stuck alarm')]),
          graph(
            'Export queues (messages)',
            [
              props.exportWork.queue.metricApproximateNumberOfMessagesVisible({ period, statistic: cw.Stats.MAXIMUM, label: 'queued' }),
              props.exportWork.deadLetters.metricApproximateNumberOfMessagesVisible({ period, statistic: cw.Stats.MAXIMUM, label: 'dead letters' }),
            ],
            8,
            [line(t.exportDeadLetters, 'alarm')],
          ),
          graph('Export worker (duration p99, errors)', [props.exportWork.worker.metricDuration({ period, statistic: cw.Stats.p(99) }), props.exportWork.worker.metricErrors({ period })], 8),
        ],
        [
          graph('Authentication failures (401)', [everyService(METRIC.authenticationFailures, period)], 8),
          graph('Search pages', [everyService(METRIC.searchPages, period)], 8),
          graph('Search rows', [everyService(METRIC.searchRows, period)], 8),
        ],
        [graph('/mcp rate limit (429s; requests let through while the count failed)', [METRIC.mcpRateLimited, METRIC.mcpRateLimitUnavailable].map((m) => service(m, 'mcp')), 8)],
      ],
    });
  }
}
