/**
 * Gives every request an id (API Gateway's, or a new one) as the logs' correlation id, a meter and
 * an audit trail; writes the closing request line (status, duration, route) and the audit line
 * once the status is known; puts `X-Request-Id` on every response, errors included.
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { AuditTrail } from '../../telemetry/audit';
import type { Logger } from '../../telemetry/logger';
import { meterOf, type Meter } from '../../telemetry/metrics';
import { LOG_MESSAGE, METRIC } from '../../telemetry/names';
import type { Metrics } from '@aws-lambda-powertools/metrics';

/** The route a request matched: its template and the values of its `{name}` segments. */
export interface MatchedRoute {
  method: string;
  route: string;
  params: Readonly<Record<string, string>>;
}

export interface RequestContext {
  requestId: string;
  log: Logger;
  meter: Meter;
  audit: AuditTrail;
  startedAt: number;
  matched?: MatchedRoute;
}

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;

/** Context of each event in flight, found again by the handler and the error renderer. */
const contexts = new WeakMap<Event, RequestContext>();

export function contextOf(event: Event): RequestContext {
  const ctx = contexts.get(event);
  if (!ctx) throw new Error('requestContext middleware is not installed');
  return ctx;
}

export function requestContext(log: Logger, metrics: Metrics): MiddlewareObj<Event, Result> {
  const meter = meterOf(metrics);
  const finish = (event: Event, response: Result | null | undefined) => {
    const ctx = contexts.get(event);
    if (!ctx || !response) return;
    const status = response.statusCode ?? 200;
    response.headers = { ...response.headers, 'X-Request-Id': ctx.requestId };
    if (status === 401) meter.count(METRIC.authenticationFailures);
    log.info(LOG_MESSAGE.request, {
      method: event.requestContext?.http?.method,
      path: event.rawPath,
      ...(ctx.matched ? { route: ctx.matched.route } : {}),
      status,
      durationMs: Math.round((performance.now() - ctx.startedAt) * 10) / 10,
    });
    const audit = ctx.matched && ctx.audit.line(ctx.matched, status);
    if (audit) log.info(LOG_MESSAGE.audit, { audit });
  };
  return {
    before: (request) => {
      const requestId = request.event.requestContext?.requestId || randomUUID();
      log.setCorrelationId(requestId);
      contexts.set(request.event, { requestId, log, meter, audit: new AuditTrail(), startedAt: performance.now() });
    },
    after: (request) => finish(request.event, request.response),
    onError: (request) => finish(request.event, request.response),
  };
}
