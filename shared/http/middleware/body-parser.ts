/**
 * JSON and form bodies, parsed by middy's own parsers, but only when a body was sent: a GET that
 * carries a JSON content type and no body is not an error. The raw text is kept for handlers
 * that need it (digests, the R4 loss report).
 */
import type { MiddlewareObj } from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import httpUrlencodeBodyParser from '@middy/http-urlencode-body-parser';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { badRequest } from '../errors';
import { jsonDepth } from '../json-depth';

type Event = APIGatewayProxyEventV2 & { rawBody?: string };

/** Parses JSON and form bodies; a JSON body nesting deeper than `maxDepth()` is a 400. */
export function bodyParser(maxDepth: () => number): MiddlewareObj<Event> {
  const json = httpJsonBodyParser({ disableContentTypeError: true });
  const form = httpUrlencodeBodyParser({ disableContentTypeError: true });
  return {
    before: async (request) => {
      const { body, isBase64Encoded } = request.event;
      if (body === undefined || body === null || body === '') return;
      request.event.rawBody = isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
      // Both parsers leave a body they do not recognise untouched.
      await json.before!(request as never);
      if (typeof request.event.body === 'string') await form.before!(request as never);
      const limit = maxDepth();
      if (typeof request.event.body === 'object' && jsonDepth(request.event.body, limit) > limit) {
        throw badRequest(`The JSON body nests deeper than ${limit} levels.`, 'too-costly');
      }
    },
  };
}
