/**
 * One HTTP API: every gateway route of the shared table to its family's Lambda.
 *
 * HTTP APIs have no X-Ray tracing (only REST APIs do): traces start at the functions, which run with
 * active tracing. What ties a request together instead is API Gateway's request id: the access log
 * line carries it as `correlation_id`, and the functions log the same id under the same name (with
 * their `xray_trace_id`), so one Logs Insights filter finds the gateway's line and the function's.
 */
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import { RemovalPolicy } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { DEFAULT_ROUTE_FAMILY, GATEWAY_ROUTES, type Family } from '../../shared/http/families';

export interface HttpApiProps {
  functions: Record<Family, lambda.IFunction>;
  logRetention: logs.RetentionDays;
  /** Encrypts the access log group. */
  logKey: kms.IKey;
  /** Steady-state requests a second and burst, per the whole API. */
  throttle: { rate: number; burst: number };
}

export class ServiceHttpApi extends Construct {
  readonly api: apigwv2.HttpApi;
  readonly accessLogs: logs.LogGroup;

  constructor(scope: Construct, id: string, props: HttpApiProps) {
    super(scope, id);
    const integrations = new Map<Family, HttpLambdaIntegration>();
    const integrationFor = (family: Family) => {
      let integration = integrations.get(family);
      if (!integration) {
        integration = new HttpLambdaIntegration(`${family}-integration`, props.functions[family], {
          payloadFormatVersion: apigwv2.PayloadFormatVersion.VERSION_2_0,
        });
        integrations.set(family, integration);
      }
      return integration;
    };
    this.api = new apigwv2.HttpApi(this, 'api', {
      description: 'Clinical data exchange: FHIR R5, management API and OAuth 2.0',
      // Unmatched paths reach a family that answers a proper 404 body.
      defaultIntegration: integrationFor(DEFAULT_ROUTE_FAMILY),
    });
    for (const route of GATEWAY_ROUTES) {
      this.api.addRoutes({ path: route.path, methods: [apigwv2.HttpMethod.ANY], integration: integrationFor(route.family) });
    }
    const accessLogs = new logs.LogGroup(this, 'access-logs', {
      retention: props.logRetention,
      encryptionKey: props.logKey,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.accessLogs = accessLogs;
    const stage = this.api.defaultStage!.node.defaultChild as apigwv2.CfnStage;
    stage.defaultRouteSettings = {
      throttlingRateLimit: props.throttle.rate,
      throttlingBurstLimit: props.throttle.burst,
    };
    stage.accessLogSettings = {
      destinationArn: accessLogs.logGroupArn,
      format: JSON.stringify({
        correlation_id: '$context.requestId',
        requestTime: '$context.requestTimeEpoch',
        ip: '$context.identity.sourceIp',
        userAgent: '$context.identity.userAgent',
        method: '$context.httpMethod',
        path: '$context.path',
        routeKey: '$context.routeKey',
        status: '$context.status',
        responseBytes: '$context.responseLength',
        latencyMs: '$context.responseLatency',
        // The function's own time and status, and Lambda's request id (the function log's
        // `function_request_id`): a gap between latencyMs and integrationLatencyMs is the gateway's.
        integrationLatencyMs: '$context.integrationLatency',
        integrationStatus: '$context.integration.status',
        lambdaRequestId: '$context.integration.requestId',
        integrationError: '$context.integrationErrorMessage',
        error: '$context.error.message',
      }),
    };
  }
}
