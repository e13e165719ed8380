/**
 * The metrics the alarms and the dashboard read, defined once so a graph shows exactly what its
 * alarm evaluates. The service's own metrics come from shared/telemetry/names.ts (namespace, names,
 * the `service` dimension Powertools adds); the rest are the AWS services' metrics.
 *
 * Sums over several series use `SUM([...])`, never `a + b`: a series with no point in a period
 * (no throttled Query, no refused entry) would otherwise blank the whole sum and hide the others.
 */
import { Duration } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as cw from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { FHIR_BASES, familyForPath, IMPORT_BASE, MCP_PATH, type Family } from '../shared/http/families';
import type { TableDefinition } from '../shared/store/tables';
import { EXPORT_WORKER, METRIC, METRICS_NAMESPACE, type MetricName } from '../shared/telemetry/names';

/**
 * The DynamoDB operations the code sends (the lib-dynamodb commands Get, BatchGet, Query, Put,
 * Update, Delete, BatchWrite, TransactWrite). Throttles and system errors are reported per
 * operation; an alarm sums these. test/infra checks the list against the commands the code imports.
 */
export const TABLE_OPERATIONS = ['GetItem', 'BatchGetItem', 'Query', 'Scan', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems'] as const;

/** The family whose endpoints take mobile-health uploads (batch and create), and the R4 import's: the routing table's. */
export const UPLOAD_FAMILY: Family = familyForPath(FHIR_BASES[0]);
export const IMPORT_FAMILY: Family = familyForPath(IMPORT_BASE);
/** The family of the assistants' endpoint, whose rate limit counts in the directory table. */
export const MCP_FAMILY: Family = familyForPath(MCP_PATH);

/** Rates are only computed over this many entries in a period: two refusals out of three at night are not an incident. */
export const RATE_MINIMUM_ENTRIES = { upload: 50, import: 20, apiRequests: 20 } as const;

/** One of the service's metrics for one family (the `service` dimension), summed over the period. */
export function serviceMetric(name: MetricName, family: Family | typeof EXPORT_WORKER, period: Duration, label?: string): cw.Metric {
  return new cw.Metric({
    namespace: METRICS_NAMESPACE,
    metricName: name,
    dimensionsMap: { service: family },
    statistic: cw.Stats.SUM,
    period,
    ...(label ? { label } : {}),
  });
}

/**
 * One of the service's metrics for every family that emits it, one line each (a dashboard search:
 * alarms cannot use it, graphs need no list of who emits what). `byStatus` reads the [service,
 * status] dimension set instead of [service].
 */
export function everyService(name: MetricName, period: Duration, byStatus = false): cw.MathExpression {
  const dimensions = byStatus ? 'service,status' : 'service';
  return new cw.MathExpression({
    expression: `SEARCH('{${METRICS_NAMESPACE},${dimensions}} MetricName="${name}"', 'Sum', ${period.toSeconds()})`,
    label: '',
    period,
  });
}

/** `100 * part / whole`, only when the whole reaches `minimum`, else 0. Missing series count as 0. */
function percentage(label: string, part: Record<string, cw.IMetric>, rest: Record<string, cw.IMetric>, minimum: number, period: Duration): cw.MathExpression {
  const filled = (ids: string[]) => ids.map((id) => `FILL(${id}, 0)`).join(' + ');
  const partSum = filled(Object.keys(part));
  const whole = `(${partSum} + ${filled(Object.keys(rest))})`;
  return new cw.MathExpression({
    expression: `IF(${whole} >= ${minimum}, 100 * (${partSum}) / ${whole}, 0)`,
    usingMetrics: { ...part, ...rest },
    label,
    period,
  });
}

/** Upload entries refused, as a percentage of the entries answered (stored, already stored, refused). */
export function uploadRefusalRate(period: Duration): cw.MathExpression {
  const m = (name: MetricName) => serviceMetric(name, UPLOAD_FAMILY, period);
  return percentage(
    'Upload entries refused (%)',
    { refused: m(METRIC.uploadEntriesRefused) },
    { stored: m(METRIC.readingsStored), duplicate: m(METRIC.readingsDuplicate) },
    RATE_MINIMUM_ENTRIES.upload,
    period,
  );
}

/** R4 import entries refused, as a percentage of the entries the import answered. */
export function importFailureRate(period: Duration): cw.MathExpression {
  const m = (name: MetricName) => serviceMetric(name, IMPORT_FAMILY, period);
  return percentage(
    'R4 import entries failed (%)',
    { failed: m(METRIC.importEntriesFailed) },
    { created: m(METRIC.importEntriesCreated), lossy: m(METRIC.importEntriesWithLoss) },
    RATE_MINIMUM_ENTRIES.import,
    period,
  );
}

/** The API's 5xx answers as a percentage of its requests. */
export function apiServerErrorRate(api: apigwv2.HttpApi, period: Duration): cw.MathExpression {
  return new cw.MathExpression({
    expression: `IF(requests >= ${RATE_MINIMUM_ENTRIES.apiRequests}, 100 * FILL(errors, 0) / requests, 0)`,
    usingMetrics: { errors: api.metricServerError({ period, statistic: cw.Stats.SUM }), requests: api.metricCount({ period, statistic: cw.Stats.SUM }) },
    label: 'API 5xx (%)',
    period,
  });
}

/** Metric ids are unique in a graph or alarm: `<table><Operation>`, e.g. `auxGetItem`. */
function perOperation(table: dynamodb.TableV2, tableId: TableDefinition['id'], metricName: string, label: string, period: Duration): cw.MathExpression {
  const metrics = Object.fromEntries(
    TABLE_OPERATIONS.map((operation) => [
      `${tableId}${operation}`,
      new cw.Metric({ namespace: 'AWS/DynamoDB', metricName, dimensionsMap: { TableName: table.tableName, Operation: operation }, statistic: cw.Stats.SUM, period }),
    ]),
  );
  return new cw.MathExpression({ expression: `SUM([${Object.keys(metrics).join(', ')}])`, usingMetrics: metrics, label, period });
}

/** Requests DynamoDB refused for throughput on the table or its indexes, over the operations the code sends. */
export function tableThrottledRequests(table: dynamodb.TableV2, tableId: TableDefinition['id'], period: Duration): cw.MathExpression {
  return perOperation(table, tableId, 'ThrottledRequests', `${tableId} throttled requests`, period);
}

/** DynamoDB's own failures (HTTP 500) on the table, over the same operations. */
export function tableSystemErrors(table: dynamodb.TableV2, tableId: TableDefinition['id'], period: Duration): cw.MathExpression {
  return perOperation(table, tableId, 'SystemErrors', `${tableId} system errors`, period);
}

/**
 * Concurrency the account cannot give to on-demand invocations (reserved plus running unreserved),
 * as a percentage of the account's quota. The quota is a setting, not read from Service Quotas:
 * it differs per account (new accounts start at 10) and only the operator knows it.
 */
export function accountConcurrencyPercent(quota: number, period: Duration): cw.MathExpression {
  return new cw.MathExpression({
    expression: `100 * claimed / ${quota}`,
    usingMetrics: { claimed: new cw.Metric({ namespace: 'AWS/Lambda', metricName: 'ClaimedAccountConcurrency', statistic: cw.Stats.MAXIMUM, period }) },
    label: `Claimed account concurrency (% of ${quota})`,
    period,
  });
}

export const PERIOD = { alarm: Duration.minutes(5), rate: Duration.minutes(15), concurrency: Duration.minutes(1) } as const;
