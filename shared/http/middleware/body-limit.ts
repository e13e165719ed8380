/** Refuses a body over the limit before anything parses or stores it (413). */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { payloadTooLarge } from '../errors';

export function bodySize(event: Pick<APIGatewayProxyEventV2, 'body' | 'isBase64Encoded'>): number {
  if (event.body === undefined || event.body === null) return 0;
  return event.isBase64Encoded ? Buffer.byteLength(event.body, 'base64') : Buffer.byteLength(event.body, 'utf8');
}

export function bodyLimit(maxBytes: () => number): MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: (request) => {
      const limit = maxBytes();
      if (bodySize(request.event) > limit) throw payloadTooLarge(limit);
    },
  };
}
