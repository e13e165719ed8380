/**
 * On AWS the public site URL (the CloudFront domain, or the operator's custom domain) is published
 * by the stack in an SSM parameter: it cannot be a plain environment variable of the functions,
 * because the distribution depends on the API, which depends on the functions. Each cold start
 * reads it once, before the first request, so the token issuer and invitation links are right.
 */
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { resetConfig } from '../../config';
import { readParameter } from '../../store/parameters';

let loading: Promise<void> | undefined;

async function loadSiteUrl(parameterName: string): Promise<void> {
  process.env.SITE_URL = await readParameter(parameterName);
  resetConfig();
}

export function siteUrlFromParameter(): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  return {
    before: async () => {
      const name = process.env.SITE_URL_PARAMETER;
      if (!name || process.env.SITE_URL) return;
      // A failed read is retried by the next request rather than cached as a failure.
      loading ??= loadSiteUrl(name).catch((e) => {
        loading = undefined;
        throw e;
      });
      await loading;
    },
  };
}
