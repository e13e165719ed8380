/**
 * The consent step between sign-in and code (docs/access.md#consent): a client other than the
 * service's own gets a code only once the person allowed it, on a page that shows its name, where
 * it sends them back to and what it will be able to see. The sign-in leaves a session (the
 * authorization request, server-side, bound to the sign-in form's CSRF cookie); the page's form
 * carries only the session's id, that CSRF value and the answer, so nothing of the request can be
 * changed by the post, and a post from elsewhere (no cookie, or another value) changes nothing.
 * An approval covering the scopes asked skips the page.
 */
import type { OAuthClient, User } from '../../shared/directory/model';
import { isHttpError } from '../../shared/http/errors';
import type { HttpRequest } from '../../shared/http/request';
import type { HttpResponse } from '../../shared/http/response';
import { approvalCovers, approvalOf, approve } from '../../shared/oauth/approvals';
import { redirectWith, responseParameters, type AuthorizationRequest } from '../../shared/oauth/authorize';
import { describeAccess, needsConsent } from '../../shared/oauth/consent';
import { consentPage, messagePage } from '../../shared/oauth/consent-pages';
import { formParams, type Params } from '../../shared/oauth/form';
import { CONSENT_SESSION_SECONDS, endSession, openSession, startSession, type PendingAuthorization } from '../../shared/oauth/sign-in-sessions';
import { csrfCookie, csrfCookieName, CSRF_SECONDS, redirect, sameSecret, sendCode } from './browser-steps';

/** What a signed-in person's authorization request keeps for the code: the scope granted to their account. */
export function pendingAuthorization(request: AuthorizationRequest, scope: string): PendingAuthorization {
  return {
    clientId: request.client.clientId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    scope,
    ...(request.state !== undefined ? { state: request.state } : {}),
    ...(request.nonce ? { nonce: request.nonce } : {}),
    ...(request.resource ? { resource: request.resource } : {}),
  };
}

/**
 * After a sign-in: nothing to ask (the service's own client), an approval that covers the request
 * (its id goes on the code), or the consent page to show.
 */
export async function consentStep(client: OAuthClient, user: Pick<User, 'id' | 'kind'>, pending: PendingAuthorization, csrf: string): Promise<{ page?: HttpResponse; approvalId?: string }> {
  if (!needsConsent(client)) return {};
  const resource = pending.resource ?? 'service';
  const standing = await approvalOf(user.id, client.clientId, resource);
  if (standing && approvalCovers(standing, pending.scope)) return { approvalId: standing.approvalId };
  const session = await startSession({ userId: user.id, kind: user.kind, csrf, authorization: pending, seconds: CONSENT_SESSION_SECONDS });
  const page = consentPage({
    clientName: client.name,
    redirectUri: pending.redirectUri,
    lines: describeAccess({ scope: pending.scope, resource, kind: user.kind, refreshes: client.grantTypes.includes('refresh_token') }),
    session,
    csrf,
    wider: standing !== undefined,
  });
  // The CSRF cookie is the sign-in's; it lives on as long as the page may wait.
  return { page: { ...page, cookies: [csrfCookie(csrf, CSRF_SECONDS)] } };
}

const refused = () => messagePage(403, 'This page cannot continue', 'This consent page has expired, was answered already, or was not sent from this site. Go back to the application and sign in again.');

/** `POST /o/consent/`: Allow issues the code, Deny sends `access_denied`; anything else changes nothing. */
export async function submitConsent(req: HttpRequest): Promise<HttpResponse> {
  let params: Params;
  try {
    params = formParams(req);
  } catch (e) {
    if (isHttpError(e)) return messagePage(400, 'This page cannot continue', e.message);
    throw e;
  }
  const csrf = req.cookies[csrfCookieName()];
  if (!sameSecret(csrf, params.csrf)) return refused();
  const session = await openSession(params.session, params.csrf);
  const pending = session?.authorization;
  if (!session || !pending) return refused();
  const decision = params.decision;
  if (decision !== 'allow' && decision !== 'deny') return messagePage(400, 'This page cannot continue', 'Choose Allow or Deny.');
  // One answer per page: of two posts racing, one goes on.
  if (!(await endSession(params.session!))) return refused();
  if (decision === 'deny') {
    const denied = responseParameters({ error: 'access_denied', error_description: 'The person did not allow this application.' }, pending.state);
    return redirect(redirectWith(pending.redirectUri, denied), [csrfCookie('', 0)]);
  }
  const approval = await approve(session.userId, pending.clientId, pending.resource ?? 'service', pending.scope);
  return sendCode(pending, { id: session.userId, kind: session.kind }, approval.approvalId);
}
