/**
 * `GET /o/authorize/` shows the sign-in form for a checked authorization request; `POST` signs in
 * and sends the authorization code to the client's redirect URI, or first the consent page of a
 * client that must ask (`consent.ts`). The form is protected against cross-site posting by a
 * double-submit token: a random value in an HttpOnly SameSite=Strict cookie (`__Host-` prefixed on
 * HTTPS) that the form must echo (`browser-steps.ts`).
 */
import { randomAlphanumeric } from '../../shared/secrets';
import { isHttpError } from '../../shared/http/errors';
import type { HttpRequest } from '../../shared/http/request';
import type { HttpResponse } from '../../shared/http/response';
import {
  CARRIED_PARAMETERS,
  parseAuthorizationRequest,
  RedirectedError,
  redirectWith,
  responseParameters,
  UnsafeRequest,
  type AuthorizationRequest,
} from '../../shared/oauth/authorize';
import { formParams, parseParams, type Params } from '../../shared/oauth/form';
import { passwordLinkFor, problemPage, signInPage } from '../../shared/oauth/pages';
import { grantedScope } from '../../shared/oauth/scopes';
import { ensureServiceClients } from '../../shared/oauth/service-clients';
import { signIn } from '../../shared/oauth/sign-in';
import { csrfCookie, csrfCookieName, CSRF_SECONDS, redirect, refusedSignIn, sameSecret, sendCode } from './browser-steps';
import { consentStep, pendingAuthorization } from './consent';

type CheckedRequest = { params: Params; request: AuthorizationRequest };

/** Reads the request; a page or a redirect when it cannot go on. */
async function checked(read: () => Params): Promise<CheckedRequest | HttpResponse> {
  let params: Params;
  try {
    params = read();
  } catch (e) {
    if (isHttpError(e)) return problemPage(400, e.message);
    throw e;
  }
  await ensureServiceClients();
  try {
    return { params, request: await parseAuthorizationRequest(params) };
  } catch (e) {
    if (e instanceof UnsafeRequest) return problemPage(400, e.message);
    if (e instanceof RedirectedError) return redirect(redirectWith(e.redirectUri, responseParameters({ error: e.code, error_description: e.message }, e.state)));
    throw e;
  }
}

/** The authorization request's parameters a form carries to its post (and nothing else). */
export function carried(params: Params): Record<string, string> {
  return Object.fromEntries(CARRIED_PARAMETERS.filter((p) => params[p] !== undefined).map((p) => [p, params[p]!]));
}

function form(request: AuthorizationRequest, params: Params, status: number, extra: { error?: string; email?: string; csrf?: string; notice?: string } = {}): HttpResponse {
  const csrf = extra.csrf ?? randomAlphanumeric(32);
  return signInPage({
    status,
    clientName: request.client.name,
    carried: carried(params),
    csrf,
    redirectUri: request.redirectUri,
    passwordLink: passwordLinkFor(carried(params)),
    ...(extra.error ? { error: extra.error } : {}),
    ...(extra.notice ? { notice: extra.notice } : {}),
    ...(extra.email ? { email: extra.email } : {}),
    ...(extra.csrf ? {} : { cookies: [csrfCookie(csrf, CSRF_SECONDS)] }),
  });
}

export async function showSignIn(req: HttpRequest): Promise<HttpResponse> {
  const result = await checked(() => parseParams(req.query.toString()));
  if (!('request' in result)) return result;
  return form(result.request, result.params, 200);
}

/** An authorization request carried by another page (`password.ts`), checked as this page checks it: the request, or the page or redirect that ends it. */
export const checkedRequest = (params: Params): Promise<CheckedRequest | HttpResponse> => checked(() => params);

/** The sign-in form of a checked authorization request again, after an invited patient set a password (`password.ts`), the email filled in. */
export const signInAgain = ({ request, params }: CheckedRequest, email: string, notice: string): HttpResponse => form(request, params, 200, { email, notice });

export async function submitSignIn(req: HttpRequest): Promise<HttpResponse> {
  const result = await checked(() => formParams(req));
  if (!('request' in result)) return result;
  const { params, request } = result;
  const csrf = req.cookies[csrfCookieName()];
  if (!sameSecret(csrf, params.csrf)) {
    return form(request, params, 403, { error: 'This sign-in form has expired or was not sent from this site. Please sign in again.' });
  }
  const email = params.email ?? '';
  const password = params.password ?? '';
  if (!email || !password) return form(request, params, 400, { error: 'Enter your email and password.', email, csrf: csrf! });
  const outcome = await signIn(email, password);
  if (!outcome.ok) return refusedSignIn(outcome, (status, error) => form(request, params, status, { error, email, csrf: csrf! }));
  const { user } = outcome;
  const pending = pendingAuthorization(request, grantedScope(request.scope, user.kind));
  const consent = await consentStep(request.client, user, pending, csrf!);
  if (consent.page) return consent.page;
  return sendCode(pending, user, consent.approvalId);
}
