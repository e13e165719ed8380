/**
 * Runs a handler as Lambda's runtime does when one execution environment serves several requests
 * at once (the local gateway and the tests do): each invocation inside its own invoke context, so
 * Powertools keeps per-invocation state (correlation id, buffered metrics, log keys) apart for
 * requests in flight together, exactly as it does on Lambda.
 */
import { InvokeStore } from '@aws/lambda-invoke-store';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import type { LambdaHandler } from '../shared/http/handler';
import { lambdaContext } from './api-gateway-event';

// The store must exist before Powertools sees the setting that makes it look for one.
const store = await InvokeStore.getInstanceAsync(true);
process.env.AWS_LAMBDA_MAX_CONCURRENCY ??= '1000';

/** Lambda's key of the request id in the invoke context (a registered symbol, shared with the runtime). */
const REQUEST_ID = Symbol.for('_AWS_LAMBDA_REQUEST_ID');

export function invokeLambda(handler: LambdaHandler, event: APIGatewayProxyEventV2, functionName: string, timeoutMs?: number): Promise<APIGatewayProxyResultV2> {
  const context = lambdaContext(functionName, timeoutMs);
  return store.run({ [REQUEST_ID]: context.awsRequestId }, () => handler(event, context));
}
