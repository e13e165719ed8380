/**
 * Logs Insights saved queries over the functions' JSON lines (Powertools Logger: `message`,
 * `service`, `correlation_id`, `xray_trace_id`, ...) and the API access log. A saved query takes no
 * parameters, so the ones about one patient or one request carry a placeholder the operator
 * replaces before running; the placeholder is chosen to match nothing, so running the query
 * unedited returns no rows rather than someone else's. The time range is the console's (one hour
 * by default); docs/operations.md explains each query.
 */
import { Stack } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { LOG_MESSAGE } from '../../shared/telemetry/names';

/** Replaced by a patient id (digits) before running: letters never match the pattern's number. */
export const PATIENT_PLACEHOLDER = 'PATIENT_ID';
/** Replaced by an API Gateway request id (the `correlation_id` of a line). */
export const REQUEST_PLACEHOLDER = 'REQUEST_ID';

export const QUERY_NAMES = {
  patient: 'Everything that touched patient X (audit)',
  slowest: 'Slowest requests',
  request: 'One request end to end',
} as const;

export interface LogQueriesProps {
  functionLogs: logs.ILogGroup[];
  accessLogs: logs.ILogGroup;
}

export class LogQueries extends Construct {
  readonly definitions: logs.QueryDefinition[];

  constructor(scope: Construct, id: string, props: LogQueriesProps) {
    super(scope, id);
    // Saved queries appear in the console in a folder per stack.
    const name = (title: string) => `${Stack.of(this).stackName}/${title}`;
    const patient = new logs.QueryDefinition(this, 'patient', {
      queryDefinitionName: name(QUERY_NAMES.patient),
      queryString: new logs.QueryString({
        fields: ['@timestamp', 'service', 'audit.action', 'audit.resourceType', 'audit.route', 'audit.result', 'audit.who.kind', 'audit.who.userId', 'audit.who.clientId', 'correlation_id'],
        // `audit.patients` is a JSON array (Insights only flattens it into .0, .1, ...): the pattern
        // finds the id as a whole element anywhere in it, never as part of a longer number.
        filterStatements: [`message = "${LOG_MESSAGE.audit}"`, `@message like /"patients":\\[([0-9]+,)*${PATIENT_PLACEHOLDER}[,\\]]/`],
        sort: '@timestamp desc',
        limit: 10_000,
      }),
      logGroups: props.functionLogs,
    });
    const slowest = new logs.QueryDefinition(this, 'slowest', {
      queryDefinitionName: name(QUERY_NAMES.slowest),
      queryString: new logs.QueryString({
        fields: ['@timestamp', 'service', 'method', 'route', 'path', 'status', 'durationMs', 'cold_start', 'correlation_id', 'xray_trace_id'],
        filterStatements: [`message = "${LOG_MESSAGE.request}"`],
        sort: 'durationMs desc',
        limit: 50,
      }),
      logGroups: props.functionLogs,
    });
    const request = new logs.QueryDefinition(this, 'request', {
      queryDefinitionName: name(QUERY_NAMES.request),
      queryString: new logs.QueryString({
        fields: ['@timestamp', '@log', 'message', 'level', 'status', 'durationMs', 'latencyMs', 'integrationError', 'error', 'xray_trace_id'],
        // The access log line and every function line of the request share the gateway's request id.
        filterStatements: [`correlation_id = "${REQUEST_PLACEHOLDER}"`],
        sort: '@timestamp asc',
        limit: 1_000,
      }),
      logGroups: [...props.functionLogs, props.accessLogs],
    });
    this.definitions = [patient, slowest, request];
  }
}
