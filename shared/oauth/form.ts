/**
 * Parameters of the OAuth endpoints, read strictly (RFC 6749 §3.1, §3.2): a form body (or query,
 * for the authorization endpoint), no parameter twice, each within a length limit, control
 * characters refused. What passes is a plain map of strings.
 */
import type { HttpRequest } from '../http/request';
import { oauthError } from './errors';

/** Longest value any OAuth parameter may have (codes, tokens, URIs, state). */
export const MAX_PARAMETER_LENGTH = 2048;
/** More parameters than any request of this server sends. */
const MAX_PARAMETERS = 30;
const CONTROL = /[\x00-\x08\x0B\x0C\x0E-\x1F\x7F]/;

export type Params = Readonly<Record<string, string>>;

/** The parameters of URL-encoded text; 400 `invalid_request` for repeated, oversized or control-laden ones. */
export function parseParams(text: string): Params {
  const out: Record<string, string> = Object.create(null);
  let count = 0;
  for (const [name, value] of new URLSearchParams(text)) {
    count += 1;
    if (count > MAX_PARAMETERS) throw oauthError('invalid_request', 'The request has too many parameters.');
    if (Object.hasOwn(out, name)) throw oauthError('invalid_request', `The parameter ${safeName(name)} was given more than once.`);
    if (value.length > MAX_PARAMETER_LENGTH) throw oauthError('invalid_request', `The parameter ${safeName(name)} is longer than ${MAX_PARAMETER_LENGTH} characters.`);
    if (CONTROL.test(value)) throw oauthError('invalid_request', `The parameter ${safeName(name)} contains control characters.`);
    // An empty parameter is treated as omitted (RFC 6749 §3.1).
    if (value !== '') out[name] = value;
  }
  return { ...out };
}

/** The form body of a POST; 400 unless it is `application/x-www-form-urlencoded`. */
export function formParams(req: Pick<HttpRequest, 'isForm' | 'rawBody'>): Params {
  if (!req.isForm) throw oauthError('invalid_request', 'Send the parameters as an application/x-www-form-urlencoded body.');
  return parseParams(req.rawBody ?? '');
}

/** A parameter that must be present. */
export function required(params: Params, name: string): string {
  const value = params[name];
  if (value === undefined) throw oauthError('invalid_request', `The parameter ${name} is required.`);
  return value;
}

/** Parameter names echoed in messages are cut short and stripped of anything odd. */
function safeName(name: string): string {
  return name.replace(/[^A-Za-z0-9_.-]/g, '?').slice(0, 40);
}
