/**
 * X-Ray tracing through Powertools Tracer, on Lambda only: the handler is one segment (annotated
 * with the family and the route), each DynamoDB and S3 call a subsegment. Locally there is no X-Ray
 * daemon, so the tracer is off and costs nothing but its import.
 *
 * Responses and errors are never attached to traces: a response body is patient data.
 */
import { Tracer } from '@aws-lambda-powertools/tracer';

let tracer: Tracer | undefined;

/** The process's tracer (one per process: on Lambda a process serves one family). */
export function processTracer(): Tracer {
  tracer ??= new Tracer({
    serviceName: 'clinical-data-exchange',
    enabled: Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME) && process.env.POWERTOOLS_TRACE_ENABLED !== 'false',
    captureHTTPsRequests: false,
  });
  return tracer;
}

/** An AWS SDK v3 client whose calls appear as subsegments of the request's trace. */
export function traced<T>(client: T): T {
  const t = processTracer();
  return t.isTracingEnabled() ? t.captureAWSv3Client(client) : client;
}
