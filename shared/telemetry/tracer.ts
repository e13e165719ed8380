/**
 * X-Ray tracing through Powertools Tracer, on Lambda only: the handler is one segment (annotated
 * with the family and the route), each DynamoDB and S3 call a subsegment.
 *
 * Where tracing is off (locally: there is no X-Ray daemon; or POWERTOOLS_TRACE_ENABLED=false) the
 * Tracer is not even imported. Importing it loads aws-xray-sdk-core, whose cls-hooked namespace
 * installs a process-wide async hook that tracks the creation and destruction of every promise,
 * tracing or not: a paginated search makes several promises a row, and that hook was most of why
 * a full download slowed down when Powertools came in.
 *
 * Responses and errors are never attached to traces: a response body is patient data.
 */
import type { Tracer } from '@aws-lambda-powertools/tracer';

const tracing = Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME) && process.env.POWERTOOLS_TRACE_ENABLED !== 'false';

/**
 * What the handler and the clients use of a Tracer when tracing is off: never enabled, annotations
 * dropped. Powertools' middleware reads only `isTracingEnabled` before doing anything else.
 */
const OFF = {
  isTracingEnabled: () => false,
  putAnnotation: () => undefined,
} as unknown as Tracer;

const tracer: Tracer = tracing
  ? new (await import('@aws-lambda-powertools/tracer')).Tracer({ serviceName: 'clinical-data-exchange', enabled: true, captureHTTPsRequests: false })
  : OFF;

/** The process's tracer (one per process: on Lambda a process serves one family). */
export function processTracer(): Tracer {
  return tracer;
}

/** An AWS SDK v3 client whose calls appear as subsegments of the request's trace. */
export function traced<T>(client: T): T {
  return tracer.isTracingEnabled() ? tracer.captureAWSv3Client(client) : client;
}
