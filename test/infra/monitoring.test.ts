/** What operates the service: tracing, the alarms and their topic, the dashboard, the saved queries. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALARM_THRESHOLDS } from '../../lib/constructs/alarms';
import { PATIENT_PLACEHOLDER, QUERY_NAMES } from '../../lib/constructs/log-queries';
import { IMPORT_FAMILY, TABLE_OPERATIONS, UPLOAD_FAMILY } from '../../lib/metrics';
import { DEFAULT_RESERVED_CONCURRENCY } from '../../lib/settings';
import { FAMILIES } from '../../shared/http/families';
import { TABLES } from '../../shared/store/tables';
import { LOG_MESSAGE, METRIC, METRICS_NAMESPACE } from '../../shared/telemetry/names';
import { synthesize, type Synthesized } from './fixture';

const EMAIL = 'oncall@example.org';
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({ alarmEmail: EMAIL });
});
afterAll(() => synth?.cleanup());

const resources = (type: string) => synth.resources(type).map(([, r]) => r);
const familyFunctions = () => synth.resources('AWS::Lambda::Function').filter(([, f]) => /^Clinical data exchange: .* endpoints$/.test(String(f.Properties.Description)));
const logicalIdOf = (family: string) => familyFunctions().find(([, f]) => f.Properties.Description === `Clinical data exchange: ${family} endpoints`)![0];
const alarms = () => new Map(resources('AWS::CloudWatch::Alarm').map((a) => [String(a.Properties.AlarmName).replace(/^ClinicalDataExchange-/, ''), a.Properties]));
/** The metrics an alarm reads, as one searchable text. */
const metricsOf = (alarm: Record<string, any>) => JSON.stringify(alarm.Metrics ?? { MetricName: alarm.MetricName, Namespace: alarm.Namespace, Dimensions: alarm.Dimensions });

describe('tracing', () => {
  it('runs every family with active X-Ray tracing, with the X-Ray write actions in its policy', () => {
    expect(familyFunctions()).toHaveLength(FAMILIES.length);
    for (const [, fn] of synth.resources('AWS::Lambda::Function').filter(([id]) => id.startsWith('functions') || id.startsWith('exportwork'))) expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
    for (const policy of resources('AWS::IAM::ManagedPolicy')) {
      const actions = policy.Properties.PolicyDocument.Statement.flatMap((s: any) => [s.Action].flat());
      expect(actions).toEqual(expect.arrayContaining(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']));
    }
  });

  it('logs API Gateway\'s request id as correlation_id in the access log, the name the functions log it under', () => {
    const [stage] = resources('AWS::ApiGatewayV2::Stage');
    const format = JSON.parse(stage!.Properties.AccessLogSettings.Format);
    expect(format.correlation_id).toBe('$context.requestId');
    expect(format).toMatchObject({ status: '$context.status', latencyMs: '$context.responseLatency', integrationLatencyMs: '$context.integrationLatency' });
  });

  it('encrypts every log group with the data key', () => {
    const groups = resources('AWS::Logs::LogGroup');
    // The families', the export worker's, and the API access log.
    expect(groups).toHaveLength(FAMILIES.length + 2);
    const keys = new Set(groups.map((g) => JSON.stringify(g.Properties.KmsKeyId)));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/datakey/);
  });
});

describe('alarms', () => {
  it('notify one KMS-encrypted, TLS-only topic with an e-mail subscription to alarmEmail, on alarm and on recovery', () => {
    const [topicId, topic] = synth.resources('AWS::SNS::Topic')[0]!;
    expect(JSON.stringify(topic.Properties.KmsMasterKeyId)).toMatch(/datakey/);
    const policy = resources('AWS::SNS::TopicPolicy')[0]!.Properties.PolicyDocument.Statement;
    expect(policy).toEqual(expect.arrayContaining([expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]));
    synth.template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: EMAIL, TopicArn: { Ref: topicId } });
    for (const [name, alarm] of alarms()) {
      expect(alarm.AlarmActions, name).toEqual([{ Ref: topicId }]);
      expect(alarm.OKActions, name).toEqual([{ Ref: topicId }]);
      expect(alarm.TreatMissingData, name).toBe('notBreaching');
      expect(alarm.AlarmDescription, name).toMatch(/First check: .+ Runbook: docs\/operations\.md/);
    }
  });

  it('cover the API, every family, the account, every table and the service\'s own rates', () => {
    const expected = [
      'api-5xx-rate',
      ...FAMILIES.flatMap((f) => [`${f}-p99-latency`, `${f}-errors`, `${f}-throttles`, `${f}-concurrency`]),
      'account-concurrency',
      ...TABLES.flatMap((t) => [`${t.id}-throttled-requests`, `${t.id}-system-errors`]),
      'upload-refusal-rate',
      'import-failure-rate',
      'export-dead-letters',
      'export-stuck-jobs',
      'export-worker-errors',
      'mcp-rate-limit-unavailable',
    ];
    expect([...alarms().keys()].sort()).toEqual(expected.sort());
  });

  it('alarm on the API 5xx rate from API Gateway\'s 5xx and Count', () => {
    const alarm = alarms().get('api-5xx-rate')!;
    expect(alarm.Threshold).toBe(ALARM_THRESHOLDS.api5xxPercent);
    expect(metricsOf(alarm)).toMatch(/"MetricName":"5xx".*"MetricName":"Count"|"MetricName":"Count".*"MetricName":"5xx"/);
    expect(metricsOf(alarm)).toContain('AWS/ApiGateway');
  });

  it('alarm per family on p99 duration, errors, throttles and use of its reserved concurrency', () => {
    for (const family of FAMILIES) {
      const fn = { Ref: logicalIdOf(family) };
      const latency = alarms().get(`${family}-p99-latency`)!;
      expect(latency).toMatchObject({ ExtendedStatistic: 'p99', MetricName: 'Duration', Threshold: ALARM_THRESHOLDS.p99LatencyMs[family], Dimensions: [{ Name: 'FunctionName', Value: fn }] });
      expect(alarms().get(`${family}-errors`)).toMatchObject({ MetricName: 'Errors', Threshold: 1, Dimensions: [{ Name: 'FunctionName', Value: fn }] });
      expect(alarms().get(`${family}-throttles`)).toMatchObject({ MetricName: 'Throttles', Threshold: 1, Dimensions: [{ Name: 'FunctionName', Value: fn }] });
      expect(alarms().get(`${family}-concurrency`)).toMatchObject({
        MetricName: 'ConcurrentExecutions',
        Statistic: 'Maximum',
        Threshold: Math.floor(DEFAULT_RESERVED_CONCURRENCY[family] * ALARM_THRESHOLDS.reservedConcurrencyShare),
      });
    }
    const account = alarms().get('account-concurrency')!;
    expect(metricsOf(account)).toContain('ClaimedAccountConcurrency');
    expect(metricsOf(account)).toContain('100 * claimed / 1000');
  });

  it('alarm per table on throttled requests and system errors, summed over every operation the code sends', () => {
    const tables = synth.resources('AWS::DynamoDB::GlobalTable');
    for (const definition of TABLES) {
      const [tableId] = tables.find(([, t]) => String(t.Properties.TableName).endsWith(definition.name))!;
      for (const [suffix, metricName] of [['throttled-requests', 'ThrottledRequests'], ['system-errors', 'SystemErrors']] as const) {
        const alarm = alarms().get(`${definition.id}-${suffix}`)!;
        const queries = alarm.Metrics as Array<{ MetricStat?: any; Expression?: string }>;
        const stats = queries.filter((q) => q.MetricStat).map((q) => q.MetricStat.Metric);
        expect(stats.map((m) => m.Dimensions.find((d: any) => d.Name === 'Operation').Value).sort()).toEqual([...TABLE_OPERATIONS].sort());
        for (const m of stats) {
          expect(m.MetricName).toBe(metricName);
          expect(m.Dimensions).toContainEqual({ Name: 'TableName', Value: { Ref: tableId } });
        }
        // SUM([...]), not a + b: one operation without data must not blank the others.
        expect(queries.find((q) => q.Expression)!.Expression).toMatch(/^SUM\(\[/);
      }
    }
  });

  it('alarm on the upload refusal rate and the import failure rate from the service\'s own metrics', () => {
    const upload = metricsOf(alarms().get('upload-refusal-rate')!);
    for (const name of [METRIC.uploadEntriesRefused, METRIC.readingsStored, METRIC.readingsDuplicate]) expect(upload).toContain(`"MetricName":"${name}"`);
    expect(upload).toContain(`{"Name":"service","Value":"${UPLOAD_FAMILY}"}`);
    expect(upload).toContain(`"Namespace":"${METRICS_NAMESPACE}"`);
    expect(alarms().get('upload-refusal-rate')!.Threshold).toBe(ALARM_THRESHOLDS.uploadRefusalPercent);
    const imports = metricsOf(alarms().get('import-failure-rate')!);
    for (const name of [METRIC.importEntriesFailed, METRIC.importEntriesCreated, METRIC.importEntriesWithLoss]) expect(imports).toContain(`"MetricName":"${name}"`);
    expect(imports).toContain(`{"Name":"service","Value":"${IMPORT_FAMILY}"}`);
    expect(alarms().get('import-failure-rate')!.Threshold).toBe(ALARM_THRESHOLDS.importFailurePercent);
  });

  it('alarm when the /mcp rate limit fails open: the sum of McpRateLimitUnavailable of the mcp family, two periods in a row', () => {
    const alarm = alarms().get('mcp-rate-limit-unavailable')!;
    expect(alarm).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      MetricName: METRIC.mcpRateLimitUnavailable,
      Dimensions: [{ Name: 'service', Value: 'mcp' }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: ALARM_THRESHOLDS.mcpRateLimitUnavailable,
      EvaluationPeriods: 2,
      DatapointsToAlarm: 2,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect(alarm.AlarmDescription).toContain('MCP rate limit unavailable');
  });
});

describe('dashboard', () => {
  const body = () => JSON.stringify(resources('AWS::CloudWatch::Dashboard')[0]!.Properties.DashboardBody);

  it('is one dashboard showing every alarm and every metric the service emits', () => {
    expect(resources('AWS::CloudWatch::Dashboard')).toHaveLength(1);
    const text = body();
    expect(text).toContain('\\"type\\":\\"alarm\\"');
    for (const name of Object.values(METRIC)) expect(text, name).toContain(name);
    for (const metric of ['5xx', 'Latency', 'Invocations', 'Errors', 'Throttles', 'Duration', 'ConcurrentExecutions', 'ClaimedAccountConcurrency', 'ConsumedReadCapacityUnits', 'ConsumedWriteCapacityUnits', 'ThrottledRequests', 'SystemErrors']) {
      expect(text, metric).toContain(metric);
    }
    for (const family of FAMILIES) expect(text).toContain(logicalIdOf(family));
    // The alarm status widget lists every alarm.
    for (const [alarmId] of synth.resources('AWS::CloudWatch::Alarm')) expect(text).toContain(alarmId);
  });
});

describe('saved queries', () => {
  const queries = () => new Map(resources('AWS::Logs::QueryDefinition').map((q) => [String(q.Properties.Name).replace(/^ClinicalDataExchange\//, ''), q.Properties as Record<string, any>]));
  const functionLogGroups = () => synth.resources('AWS::Logs::LogGroup').filter(([id]) => id.startsWith('functions') || id.startsWith('exportwork')).map(([id]) => ({ Ref: id }));

  it('find everything that touched one patient in the audit lines of every function', () => {
    const query = queries().get(QUERY_NAMES.patient)!;
    expect(query.LogGroupNames).toEqual(expect.arrayContaining(functionLogGroups()));
    expect(query.QueryString).toContain(`filter message = "${LOG_MESSAGE.audit}"`);
    // The saved pattern, with a patient id in place of the placeholder, against audit lines as the functions write them.
    const pattern = /@message like \/(.+)\/$/m.exec(query.QueryString)![1]!;
    const forPatient = (id: number) => new RegExp(pattern.replace(PATIENT_PLACEHOLDER, String(id)));
    const line = (patients: number[]) => JSON.stringify({ level: 'INFO', message: 'audit', audit: { action: 'read', patients, result: 200 } });
    expect(forPatient(42).test(line([42]))).toBe(true);
    expect(forPatient(42).test(line([7, 42]))).toBe(true);
    expect(forPatient(42).test(line([1, 42, 9]))).toBe(true);
    expect(forPatient(42).test(line([142]))).toBe(false);
    expect(forPatient(42).test(line([421, 4]))).toBe(false);
    expect(forPatient(42).test(line([]))).toBe(false);
    // Run unedited, the placeholder matches no one.
    expect(new RegExp(pattern).test(line([42]))).toBe(false);
  });

  it('list the slowest requests from the request lines, slowest first', () => {
    const query = queries().get(QUERY_NAMES.slowest)!;
    expect(query.LogGroupNames).toEqual(expect.arrayContaining(functionLogGroups()));
    expect(query.QueryString).toContain(`filter message = "${LOG_MESSAGE.request}"`);
    expect(query.QueryString).toContain('sort durationMs desc');
    expect(query.QueryString).toMatch(/fields .*correlation_id.*xray_trace_id/);
  });

  it('follow one request through the access log and the function lines by correlation_id', () => {
    const query = queries().get(QUERY_NAMES.request)!;
    expect(query.LogGroupNames).toHaveLength(FAMILIES.length + 2);
    expect(query.QueryString).toContain('filter correlation_id = ');
  });
});

describe('DynamoDB operations watched', () => {
  it('include every operation the code sends (the lib-dynamodb and client-dynamodb commands it uses)', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
      });
    const commands = new Set(
      ['shared', 'functions'].flatMap(files).flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/\b(Get|BatchGet|Query|Put|Update|Delete|BatchWrite|TransactWrite|TransactGet|Scan|ExecuteStatement|BatchExecuteStatement|ExecuteTransaction)(?:Item)?Command\b/g)].map((m) => m[1]!)),
    );
    const operation = (command: string) => (['Query', 'Scan', 'ExecuteStatement', 'BatchExecuteStatement', 'ExecuteTransaction'].includes(command) ? command : command.startsWith('Transact') ? `${command}Items` : `${command}Item`);
    expect(commands.size).toBeGreaterThan(0);
    for (const command of commands) expect(TABLE_OPERATIONS as readonly string[], command).toContain(operation(command));
  });
});
