/** The transport-free request every route handler receives, parsed once from the API Gateway event. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Logger } from '../log';

/** How errors and bodies are rendered on a path. */
export type Dialect = 'fhir' | 'api' | 'oauth' | 'plain';

export interface HttpRequest {
  readonly method: string;
  /** The path as received, without query string. */
  readonly path: string;
  /** Values of `{name}` segments of the matched route. */
  readonly params: Readonly<Record<string, string>>;
  /** Query parameters in order, repeated keys kept. */
  readonly query: URLSearchParams;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** Request cookies by name (API Gateway v2 passes them apart from the headers). */
  readonly cookies: Readonly<Record<string, string>>;
  /** Parsed body: a JSON value, a form object, or undefined when there was none. */
  readonly body: unknown;
  /** The body as text before parsing, when one was sent. */
  readonly rawBody: string | undefined;
  /** `true` when the request carried a JSON media type. */
  readonly isJson: boolean;
  /** `true` when the request carried a form-encoded body. */
  readonly isForm: boolean;
  readonly requestId: string;
  /** Public origin the client used (scheme://host[:port]), for absolute links. */
  readonly origin: string;
  readonly log: Logger;
}

export function lowerCaseHeaders(headers: APIGatewayProxyEventV2['headers'] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) if (v !== undefined) out[k.toLowerCase()] = v;
  return out;
}

export const JSON_MEDIA = /^application\/(.+\+)?json\s*($|;)/i;
export const FORM_MEDIA = /^application\/x-www-form-urlencoded\s*($|;)/i;

/** The origin a client addressed: CloudFront passes the viewer's host as `x-forwarded-host`. */
export function requestOrigin(headers: Readonly<Record<string, string>>, fallback: string): string {
  const host = headers['x-forwarded-host'] ?? headers['host'];
  if (!host) return fallback;
  const proto = (headers['x-forwarded-proto'] ?? (host.startsWith('localhost') || host.startsWith('127.') ? 'http' : 'https'))
    .split(',')[0]!
    .trim();
  return `${proto}://${host.split(',')[0]!.trim()}`;
}

/** Cookies of a v2 event (`["a=1", "b=2"]`) by name; the first of a repeated name wins. */
export function parseCookies(cookies: readonly string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const cookie of cookies ?? []) {
    for (const part of cookie.split(';')) {
      const eq = part.indexOf('=');
      if (eq <= 0) continue;
      const name = part.slice(0, eq).trim();
      if (name && !Object.hasOwn(out, name)) out[name] = part.slice(eq + 1).trim();
    }
  }
  return out;
}
