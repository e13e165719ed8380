/**
 * Gives every request an id (API Gateway's, or a new one), a logger bound to it, a closing log
 * line with status and duration, and the `X-Request-Id` header on every response, errors included.
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { rootLogger, type Logger } from '../../log';

export interface RequestContext {
  requestId: string;
  log: Logger;
  startedAt: number;
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

export function requestContext(family: string): MiddlewareObj<Event, Result> {
  const finish = (event: Event, response: Result | null | undefined) => {
    const ctx = contexts.get(event);
    if (!ctx || !response) return;
    response.headers = { ...response.headers, 'X-Request-Id': ctx.requestId };
    ctx.log.info(
      {
        method: event.requestContext?.http?.method,
        path: event.rawPath,
        status: response.statusCode,
        durationMs: Math.round((performance.now() - ctx.startedAt) * 10) / 10,
      },
      'request',
    );
  };
  return {
    before: (request) => {
      const requestId = request.event.requestContext?.requestId || randomUUID();
      contexts.set(request.event, {
        requestId,
        log: rootLogger().child({ requestId, family }),
        startedAt: performance.now(),
      });
    },
    after: (request) => finish(request.event, request.response),
    onError: (request) => finish(request.event, request.response),
  };
}
