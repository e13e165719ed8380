/** One HTTP API: every gateway route of the shared table to its family's Lambda. */
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { RemovalPolicy } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { DEFAULT_ROUTE_FAMILY, GATEWAY_ROUTES, type Family } from '../../shared/http/families';

export interface HttpApiProps {
  functions: Record<Family, lambda.IFunction>;
  logRetention: logs.RetentionDays;
  /** Steady-state requests a second and burst, per the whole API. */
  throttle: { rate: number; burst: number };
}

export class ServiceHttpApi extends Construct {
  readonly api: apigwv2.HttpApi;

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
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const stage = this.api.defaultStage!.node.defaultChild as apigwv2.CfnStage;
    stage.defaultRouteSettings = {
      throttlingRateLimit: props.throttle.rate,
      throttlingBurstLimit: props.throttle.burst,
    };
    stage.accessLogSettings = {
      destinationArn: accessLogs.logGroupArn,
      format: JSON.stringify({
        requestId: '$context.requestId',
        ip: '$context.identity.sourceIp',
        method: '$context.httpMethod',
        path: '$context.path',
        routeKey: '$context.routeKey',
        status: '$context.status',
        latencyMs: '$context.responseLatency',
        integrationError: '$context.integrationErrorMessage',
      }),
    };
  }
}
