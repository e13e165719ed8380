/** The transport-free request every route handler receives, parsed once from the API Gateway event. */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Caller } from '../auth/caller';
import type { Deadline } from './deadline';
import type { TokenResource } from './families';
import type { AuditTrail } from '../telemetry/audit';
import type { Logger } from '../telemetry/logger';
import type { Meter } from '../telemetry/metrics';

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
  /** The address the request came from, as API Gateway saw it (absent where no gateway is). */
  readonly sourceIp?: string;
  /** Public origin the client used (scheme://host[:port]), for absolute links. */
  readonly origin: string;
  readonly log: Logger;
  /** The service's own metrics of this request (flushed as EMF lines when it ends). */
  readonly meter: Meter;
  /** Who asked and which patients' data this request touched (one audit line when it ends). */
  readonly audit: AuditTrail;
  /** When the answer must be on its way: work in parts stops starting parts before it (`deadline.ts`). */
  readonly deadline: Deadline;
}

/** A request whose caller was authenticated before its handler ran (a route with `auth: 'caller'`, `'practitioner'` or `'patient'`). */
export interface AuthedRequest<C extends Caller = Caller> extends HttpRequest {
  readonly caller: C;
}

/**
 * What a caller must hold to reach a route, beyond a valid token: declared by the route (the FHIR
 * router sets `fhirType` on each type's routes) and by its family (`createHandler`), checked by the
 * authenticator as it authenticates.
 */
export interface CallerNeeds {
  /** The FHIR type the route serves: a backend service's token must name it in its system scopes (`system/<Type>.rs`). */
  readonly fhirType?: string;
  /** `false`: a backend service's token (system scopes) does not reach the route (the management API). */
  readonly backendServices?: false;
  /**
   * The resource the token must have been issued for (its audience, RFC 8707): a family declares
   * its own (`createHandler({ needs })`). Absent: the service's APIs; `any`: every resource of this
   * service (the authorization server's own userinfo).
   */
  readonly resource?: TokenResource | 'any';
}

/**
 * How a family finds the callers of its routes (shared/auth's `authenticator`, passed in: platform
 * code imports no domain folder). Called by shared/http/dispatch.ts alone, once a request.
 */
export interface Authenticator {
  /** The caller of a request, or its 401 (403 for a token that does not hold what the route needs). */
  authenticate(req: HttpRequest, needs?: CallerNeeds): Promise<Caller>;
  /**
   * Runs a read for the request's caller, which may start before the account is confirmed and is
   * released only once it is (`EarlyRead` in router.ts).
   */
  authorizedRead<T, P>(
    req: HttpRequest,
    needs: CallerNeeds,
    read: (caller: Caller, prepared: Promise<P> | undefined) => Promise<T>,
    prepare?: (claimedPatientId: number | undefined) => Promise<P>,
  ): Promise<T>;
}

export function lowerCaseHeaders(headers: APIGatewayProxyEventV2['headers'] | undefined): Record<string, string> {
  // Header names are client text: a null-prototype object takes any name as a plain key.
  const out: Record<string, string> = Object.create(null);
  for (const [k, v] of Object.entries(headers ?? {})) if (v !== undefined) out[k.toLowerCase()] = v;
  return out;
}

export const JSON_MEDIA = /^application\/(.+\+)?json\s*($|;)/i;
export const FORM_MEDIA = /^application\/x-www-form-urlencoded\s*($|;)/i;

/** API Gateway's own domains: `<api id>.execute-api.<region>.amazonaws.com` (and `.amazonaws.com.cn`). */
const API_GATEWAY_DOMAIN = /^[a-z0-9]{10}\.execute-api\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;

/**
 * The origin absolute links are built on: the configured site URL, or, on Lambda, the API's own
 * domain when the request was sent to it directly (API Gateway sets `requestContext.domainName`
 * from the domain the request reached; the client cannot). Never `Host` or `X-Forwarded-*`: a
 * client could point links, a cached CapabilityStatement and `Location` headers anywhere.
 */
export function requestOrigin(domainName: string | undefined, siteUrl: string, onLambda = Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME)): string {
  if (onLambda && domainName && API_GATEWAY_DOMAIN.test(domainName)) return `https://${domainName}`;
  return siteUrl;
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
