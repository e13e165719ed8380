/**
 * What the browser pages of the OAuth server share: the sign-in form's double-submit cookie (a
 * random value in an HttpOnly SameSite=Strict cookie, `__Host-` prefixed on HTTPS, that the form
 * must echo), the answer to a refused sign-in, the redirects, and the last step of an authorization
 * (the code sent to the client), reached from the sign-in or from the consent page.
 */
import { timingSafeEqual } from 'node:crypto';
import { config } from '../../shared/config';
import type { User } from '../../shared/directory/model';
import type { HttpResponse } from '../../shared/http/response';
import { issueAuthorizationCode } from '../../shared/oauth/authorization-codes';
import { redirectWith, responseParameters } from '../../shared/oauth/authorize';
import type { SignInResult } from '../../shared/oauth/sign-in';
import type { PendingAuthorization } from '../../shared/oauth/sign-in-sessions';

/** How long a sign-in form (its CSRF cookie) may wait for its post. */
export const CSRF_SECONDS = 30 * 60;

const secureSite = () => config().siteUrl.startsWith('https:');

/** A cookie of these pages: HttpOnly, SameSite=Strict, `__Host-` prefixed and Secure on HTTPS. */
export function pageCookie(name: string, value: string, maxAge: number): string {
  return `${secureSite() ? `__Host-${name}` : name}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${secureSite() ? '; Secure' : ''}`;
}

/** The name a page cookie is sent back under. */
export const pageCookieName = (name: string): string => (secureSite() ? `__Host-${name}` : name);

export function csrfCookieName(): string {
  return pageCookieName('cdx_signin');
}

export function csrfCookie(value: string, maxAge: number): string {
  return pageCookie('cdx_signin', value, maxAge);
}

export function redirect(location: string, cookies: string[] = []): HttpResponse {
  return { status: 303, headers: { Location: location, 'Cache-Control': 'no-store' }, ...(cookies.length > 0 ? { cookies } : {}) };
}

export function sameSecret(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** The page of a refused sign-in: wrong credentials (401), or a locked address (429 with Retry-After). */
export function refusedSignIn(outcome: Exclude<SignInResult, { ok: true }>, page: (status: number, error: string) => HttpResponse): HttpResponse {
  if (!outcome.locked) return page(401, 'The email or password is not correct.');
  const minutes = Math.max(1, Math.ceil(outcome.retryAfterSeconds / 60));
  const locked = page(429, `Too many failed sign-in attempts for this email address. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`);
  return { ...locked, headers: { ...locked.headers, 'Retry-After': String(outcome.retryAfterSeconds) } };
}

/** Issues the code of a signed-in (and, where asked, consenting) person and sends it to the client. */
export async function sendCode(pending: PendingAuthorization, user: Pick<User, 'id' | 'kind'>, approvalId: string | undefined): Promise<HttpResponse> {
  const { code } = await issueAuthorizationCode({
    clientId: pending.clientId,
    redirectUri: pending.redirectUri,
    userId: user.id,
    kind: user.kind,
    scope: pending.scope,
    codeChallenge: pending.codeChallenge,
    ...(pending.nonce ? { nonce: pending.nonce } : {}),
    ...(pending.resource ? { resource: pending.resource } : {}),
    ...(approvalId ? { approvalId } : {}),
  });
  return redirect(redirectWith(pending.redirectUri, responseParameters({ code }, pending.state)), [csrfCookie('', 0)]);
}
