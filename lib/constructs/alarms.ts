/**
 * The alarms and the topic they notify (encrypted with the data key, TLS only; an e-mail
 * subscription when the `alarmEmail` setting is given). Each alarm's description says what it
 * means and the first thing to check, so the e-mail alone is enough to start; docs/operations.md
 * ("Alarms") says more. Thresholds are in `ALARM_THRESHOLDS`, each with its reason.
 */
import { Stack } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as cw from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { FAMILIES, type Family } from '../../shared/http/families';
import { TABLES } from '../../shared/store/tables';
import { EXPORT_WORKER, METRIC } from '../../shared/telemetry/names';
import {
  accountConcurrencyPercent,
  apiServerErrorRate,
  IMPORT_FAMILY,
  importFailureRate,
  MCP_FAMILY,
  PERIOD,
  serviceMetric,
  tableSystemErrors,
  tableThrottledRequests,
  UPLOAD_FAMILY,
  uploadRefusalRate,
} from '../metrics';
import type { ExportWork } from './export-work';
import type { ServiceTables } from './tables';

export const ALARM_THRESHOLDS = {
  /** The handlers answer their own errors; more than 1% of answers being 5xx is a fault, not a client. */
  api5xxPercent: 1,
  /**
   * p99 of a family's invocation time (ms). Reads and single writes take tens of ms (docs/benchmarks.md);
   * imports of up to 1,000 entries and patient purges take seconds; every function stops at 29 s.
   */
  p99LatencyMs: { fhir: 2_000, 'fhir-import': 20_000, api: 5_000, oauth: 2_000, mcp: 5_000 } satisfies Record<Family, number>,
  /** Lambda `Errors` counts only timeouts, crashes and out-of-memory (handled errors are answers): any is worth a look. */
  lambdaErrors: 1,
  /** A throttled invocation is a request refused before our code ran. */
  lambdaThrottles: 1,
  /** Share of the family's reserved concurrency in use at once (its own ceiling). */
  reservedConcurrencyShare: 0.8,
  /** Share of the account's concurrency quota already claimed (other functions included). */
  accountConcurrencyPercent: 90,
  /** Throttles and system errors are retried by the SDK; alarming when they persist for two periods. */
  dynamoThrottledRequests: 1,
  dynamoSystemErrors: 1,
  /** Devices that send malformed or unconsented readings refuse a few; 5% is a broken client or a broken code table. */
  uploadRefusalPercent: 5,
  /** Hospital R4 data fails more often than device data; 10% of an import's entries is a pattern. */
  importFailurePercent: 10,
  /** A message in the export dead-letter queue is a part that failed every delivery: its job failed. */
  exportDeadLetters: 1,
  /** A job the sweep failed for making no progress: the worker is not running its parts. */
  exportStuckJobs: 1,
  /**
   * `/mcp` requests let through because their rate-limit count failed (fail open). The SDK has
   * retried each already; two periods in a row is the count being down, not a blip: assistants
   * then run without a limit, held back only by API Gateway's stage throttle.
   */
  mcpRateLimitUnavailable: 1,
} as const;

export interface ServiceAlarmsProps {
  api: apigwv2.HttpApi;
  functions: Record<Family, lambda.Function>;
  exportWork: ExportWork;
  tables: ServiceTables;
  /** Encrypts the topic. */
  key: kms.IKey;
  alarmEmail?: string;
  reservedConcurrency?: Record<Family, number>;
  lambdaConcurrencyQuota: number;
}

interface AlarmSpec {
  id: string;
  metric: cw.IMetric;
  threshold: number;
  /** Periods that must breach, of as many evaluated. */
  periods: number;
  meaning: string;
  firstCheck: string;
}

export class ServiceAlarms extends Construct {
  readonly topic: sns.Topic;
  readonly alarms: cw.Alarm[] = [];

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    const stackName = Stack.of(this).stackName;
    this.topic = new sns.Topic(this, 'topic', { displayName: `${stackName} alarms`, masterKey: props.key, enforceSSL: true });
    if (props.alarmEmail) this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    const action = new cwActions.SnsAction(this.topic);
    for (const spec of alarmSpecs(props)) {
      const alarm = new cw.Alarm(this, spec.id, {
        alarmName: `${stackName}-${spec.id}`,
        alarmDescription: `${spec.meaning} First check: ${spec.firstCheck} Runbook: docs/operations.md, Alarms, ${spec.id}.`,
        metric: spec.metric,
        threshold: spec.threshold,
        evaluationPeriods: spec.periods,
        datapointsToAlarm: spec.periods,
        comparisonOperator: cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        // No traffic is not an incident: a quiet night must not raise or hold an alarm.
        treatMissingData: cw.TreatMissingData.NOT_BREACHING,
      });
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
      this.alarms.push(alarm);
    }
  }
}

function alarmSpecs(props: ServiceAlarmsProps): AlarmSpec[] {
  const t = ALARM_THRESHOLDS;
  const specs: AlarmSpec[] = [
    {
      id: 'api-5xx-rate',
      metric: apiServerErrorRate(props.api, PERIOD.alarm),
      threshold: t.api5xxPercent,
      periods: 2,
      meaning: `At least ${t.api5xxPercent}% of the API's answers were 5xx for 10 minutes.`,
      firstCheck: 'the family error alarms, then the saved query "one request end to end" with a failing correlation_id from the API access log.',
    },
  ];
  for (const family of FAMILIES) {
    const fn = props.functions[family];
    specs.push(
      {
        id: `${family}-p99-latency`,
        metric: fn.metricDuration({ statistic: cw.Stats.p(99), period: PERIOD.alarm }),
        threshold: t.p99LatencyMs[family],
        periods: 3,
        meaning: `The ${family} function's p99 duration was at least ${t.p99LatencyMs[family]} ms for 15 minutes.`,
        firstCheck: `the saved query "slowest requests", then the DynamoDB throttle alarms and the X-Ray trace of a slow request (xray_trace_id).`,
      },
      {
        id: `${family}-errors`,
        metric: fn.metricErrors({ period: PERIOD.alarm, statistic: cw.Stats.SUM }),
        threshold: t.lambdaErrors,
        periods: 1,
        meaning: `The ${family} function failed (timeout, crash or out of memory) at least once in 5 minutes.`,
        firstCheck: `its log group for level ERROR and "Task timed out", and the REPORT lines' memory use.`,
      },
      {
        id: `${family}-throttles`,
        metric: fn.metricThrottles({ period: PERIOD.alarm, statistic: cw.Stats.SUM }),
        threshold: t.lambdaThrottles,
        periods: 1,
        meaning: `Lambda refused ${family} invocations for lack of concurrency.`,
        firstCheck: 'the concurrency graphs: the family at its reserved concurrency (raise reservedConcurrency) or the account at its quota.',
      },
    );
    const reserved = props.reservedConcurrency?.[family];
    if (reserved !== undefined) {
      const threshold = Math.max(1, Math.floor(reserved * t.reservedConcurrencyShare));
      specs.push({
        id: `${family}-concurrency`,
        metric: fn.metric('ConcurrentExecutions', { statistic: cw.Stats.MAXIMUM, period: PERIOD.concurrency }),
        threshold,
        periods: 5,
        meaning: `The ${family} function ran at least ${threshold} of its ${reserved} reserved executions at once for 5 minutes.`,
        firstCheck: 'whether traffic grew (API request count) or requests slowed (p99 latency); raise reservedConcurrency for growth.',
      });
    }
  }
  specs.push({
    id: 'account-concurrency',
    metric: accountConcurrencyPercent(props.lambdaConcurrencyQuota, PERIOD.alarm),
    threshold: t.accountConcurrencyPercent,
    periods: 2,
    meaning: `At least ${t.accountConcurrencyPercent}% of the account's ${props.lambdaConcurrencyQuota} concurrent executions were claimed for 10 minutes.`,
    firstCheck: 'which functions of the account hold it (ConcurrentExecutions by function); request a quota increase (Service Quotas, Lambda, Concurrent executions) and set lambdaConcurrencyQuota.',
  });
  for (const definition of TABLES) {
    const table = props.tables[definition.id];
    specs.push(
      {
        id: `${definition.id}-throttled-requests`,
        metric: tableThrottledRequests(table, definition.id, PERIOD.alarm),
        threshold: t.dynamoThrottledRequests,
        periods: 2,
        meaning: `DynamoDB throttled requests to the ${definition.id} table for 10 minutes.`,
        firstCheck: 'the table\'s CloudWatch Contributor Insights or its ThrottledRequests by Operation: one hot key (a patient, a counter) or a traffic jump beyond twice the previous peak.',
      },
      {
        id: `${definition.id}-system-errors`,
        metric: tableSystemErrors(table, definition.id, PERIOD.alarm),
        threshold: t.dynamoSystemErrors,
        periods: 2,
        meaning: `DynamoDB answered requests to the ${definition.id} table with its own errors (500) for 10 minutes.`,
        firstCheck: 'the AWS Health Dashboard for DynamoDB in this region; the SDK retries these, so check the API 5xx rate for impact.',
      },
    );
  }
  specs.push(
    {
      id: 'upload-refusal-rate',
      metric: uploadRefusalRate(PERIOD.rate),
      threshold: t.uploadRefusalPercent,
      periods: 2,
      meaning: `At least ${t.uploadRefusalPercent}% of upload entries (${UPLOAD_FAMILY} family) were refused for 30 minutes.`,
      firstCheck: 'the dashboard\'s refusals by status (400/422: a client release or the code table; 403: consents; 409: identifiers; 503: storage).',
    },
    {
      id: 'export-dead-letters',
      metric: props.exportWork.deadLetters.metricApproximateNumberOfMessagesVisible({ period: PERIOD.alarm, statistic: cw.Stats.MAXIMUM }),
      threshold: t.exportDeadLetters,
      periods: 1,
      meaning: 'A bulk export message failed every delivery and went to the dead-letter queue (its job was failed).',
      firstCheck: `the ${EXPORT_WORKER} log group for "export work failed" with the job id, then redrive or purge the dead-letter queue.`,
    },
    {
      id: 'export-stuck-jobs',
      metric: serviceMetric(METRIC.exportJobsStuck, EXPORT_WORKER, PERIOD.alarm),
      threshold: t.exportStuckJobs,
      periods: 1,
      meaning: 'The export sweep failed a job that made no progress for the stuck-job limit.',
      firstCheck: `the ${EXPORT_WORKER} function's errors and throttles, and the export queue's age of the oldest message.`,
    },
    {
      id: 'export-worker-errors',
      metric: props.exportWork.worker.metricErrors({ period: PERIOD.alarm, statistic: cw.Stats.SUM }),
      threshold: t.lambdaErrors,
      periods: 1,
      meaning: `The ${EXPORT_WORKER} function failed (timeout, crash or out of memory) at least once in 5 minutes.`,
      firstCheck: `its log group for level ERROR and "Task timed out", and the REPORT lines' memory use.`,
    },
    {
      id: 'mcp-rate-limit-unavailable',
      metric: serviceMetric(METRIC.mcpRateLimitUnavailable, MCP_FAMILY, PERIOD.alarm),
      threshold: t.mcpRateLimitUnavailable,
      periods: 2,
      meaning: `The /mcp rate limit could not be counted for 10 minutes (at least ${t.mcpRateLimitUnavailable} request let through uncounted in each 5): assistants are not rate limited.`,
      firstCheck: `the ${MCP_FAMILY} log group for "MCP rate limit unavailable" (its error: throttling, access denied, the table), then the directory table's throttle and system error alarms.`,
    },
    {
      id: 'import-failure-rate',
      metric: importFailureRate(PERIOD.rate),
      threshold: t.importFailurePercent,
      periods: 1,
      meaning: `At least ${t.importFailurePercent}% of R4 import entries (${IMPORT_FAMILY} family) failed in 15 minutes.`,
      firstCheck: 'the fhir-import log group\'s request lines with status >= 400 for the importing FHIR Source, and their OperationOutcome.',
    },
  );
  return specs;
}
