/**
 * Errors are values: a status, the issues behind it and optional field messages. The domain
 * throws them; one middleware renders them in the dialect of the path (OperationOutcome on FHIR
 * paths, `{field: [messages]}` or `{detail}` on `/api/v1/`, RFC 6749 errors under `/o/`).
 */
import { isDomainFailure, type DomainFailure } from '../failures';
import { issue, type IssueCode, type OutcomeIssue } from '../fhir/outcome';

export type FieldErrors = Record<string, string[]>;

/** What a client is told when DynamoDB or S3 stays busy after the SDK's own retries (a 503 it may retry). */
export const STORE_BUSY = 'The store is busy; please retry.';

export interface HttpErrorInit {
  /** Extra issues (warnings, further errors) beyond the main one. */
  issues?: OutcomeIssue[];
  /** Per-field messages for `/api/v1/` validation failures. */
  fields?: FieldErrors;
  /** RFC 6749 error code, used when the error reaches the OAuth endpoints. */
  oauthError?: string;
  headers?: Record<string, string>;
  /** Body to send as-is on `/api/v1/` (for the few answers whose shape the reference fixes). */
  apiBody?: unknown;
  cause?: unknown;
}

const DEFAULT_CODES: Record<number, IssueCode> = {
  400: 'invalid',
  401: 'login',
  403: 'forbidden',
  404: 'not-found',
  405: 'not-supported',
  406: 'not-supported',
  409: 'duplicate',
  410: 'deleted',
  412: 'conflict',
  413: 'too-long',
  415: 'not-supported',
  422: 'processing',
  429: 'throttled',
};

export class HttpError extends Error {
  readonly status: number;
  readonly issues: OutcomeIssue[];
  readonly fields: FieldErrors | undefined;
  readonly oauthError: string | undefined;
  readonly headers: Record<string, string>;
  readonly apiBody: unknown;

  constructor(status: number, message: string, code?: IssueCode, init: HttpErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'HttpError';
    this.status = status;
    const main = issue('error', code ?? DEFAULT_CODES[status] ?? 'exception', message);
    this.issues = [main, ...(init.issues ?? [])];
    this.fields = init.fields;
    this.oauthError = init.oauthError;
    this.headers = init.headers ?? {};
    this.apiBody = init.apiBody;
  }

  /** Attach FHIRPath expressions to the main issue. */
  at(expression: string | readonly string[]): this {
    const main = this.issues[0]!;
    main.expression = typeof expression === 'string' ? [expression] : [...expression];
    return this;
  }
}

export function isHttpError(e: unknown): e is HttpError {
  return e instanceof HttpError;
}

export const badRequest = (message: string, code: IssueCode = 'invalid', init?: HttpErrorInit) =>
  new HttpError(400, message, code, init);

/** A 400 whose body on `/api/v1/` is `{field: [messages]}`. */
export function fieldErrors(fields: FieldErrors): HttpError {
  const issues = Object.entries(fields).flatMap(([field, messages]) =>
    messages.map((m) => issue('error', 'invalid', `${field}: ${m}`, field)),
  );
  const first = issues.shift();
  return new HttpError(400, first?.diagnostics ?? 'Invalid request', 'invalid', { fields, issues });
}

export const unauthorized = (message = 'Authentication credentials were not provided.', init?: HttpErrorInit) =>
  new HttpError(401, message, 'login', {
    ...init,
    oauthError: init?.oauthError ?? 'invalid_token',
    headers: { 'WWW-Authenticate': wwwAuthenticate(init?.oauthError ?? 'invalid_token', message), ...init?.headers },
  });

function wwwAuthenticate(error: string, description: string): string {
  return `Bearer realm="cdx", error="${error}", error_description="${quotable(description)}"`;
}

/** Text that may stand between a challenge parameter's quotes. */
const quotable = (text: string) => text.replace(/["\\]/g, "'");

/** A 401's `Bearer` challenge with more parameters (after `realm`, before the error, as RFC 6750's examples order them). */
export function challengedWith(error: HttpError, params: Readonly<Record<string, string>>): HttpError {
  const challenge = error.headers['WWW-Authenticate'];
  if (error.status !== 401 || !challenge?.startsWith('Bearer ')) return error;
  const added = Object.entries(params).map(([name, value]) => `${name}="${quotable(value)}"`);
  const [realm, ...rest] = challenge.slice('Bearer '.length).split(', ');
  error.headers['WWW-Authenticate'] = `Bearer ${[realm, ...added, ...rest].join(', ')}`;
  return error;
}

export const forbidden = (message = 'You do not have permission to perform this action.', init?: HttpErrorInit) =>
  new HttpError(403, message, 'forbidden', init);

export const notFound = (message = 'Not found.', init?: HttpErrorInit) => new HttpError(404, message, 'not-found', init);

export const methodNotAllowed = (method: string, path: string, allowed: readonly string[], hint?: string) =>
  new HttpError(405, `Method ${method} is not allowed on ${path}.${hint ? ` ${hint}` : ''}`, 'not-supported', {
    headers: allowed.length > 0 ? { Allow: allowed.join(', ') } : {},
  });

export const conflict = (message: string, init?: HttpErrorInit) => new HttpError(409, message, 'duplicate', init);

export const gone = (message: string, init?: HttpErrorInit) => new HttpError(410, message, 'deleted', init);

export const payloadTooLarge = (limit: number) =>
  new HttpError(413, `The request body is larger than the limit of ${limit} bytes.`, 'too-long');

export const unsupportedMediaType = (message: string) => new HttpError(415, message, 'not-supported');

export const unprocessable = (message: string, init?: HttpErrorInit) =>
  new HttpError(422, message, 'processing', init);

/** THE mapping of a domain failure (shared/failures.ts) to its HTTP answer: a query that cannot be answered is a 400, one out of reach a 403. */
export function httpErrorOf(failure: DomainFailure): HttpError {
  const error = failure.kind === 'invalid-query' ? badRequest(failure.message) : forbidden(failure.message);
  return failure.at === undefined ? error : error.at(failure.at);
}

/** A thrown value as the routes answer it: a domain failure as its HttpError, anything else as it is. */
export const asHttpError = (e: unknown): unknown => (isDomainFailure(e) ? httpErrorOf(e) : e);
