/**
 * The page of a person's connected applications (docs/access.md#connected-applications): `GET
 * /o/connections/` shows the sign-in form, then the applications the person approved, each with
 * what it can see and a Withdraw button. Signing in here leaves a session of 15 minutes
 * (server-side; its id in an HttpOnly SameSite=Strict cookie that dies with it) whose CSRF token
 * every post carries. Withdrawing acts on the signed-in person's own approvals only.
 */
import { config } from '../../shared/config';
import { getUser } from '../../shared/directory/users';
import { isHttpError } from '../../shared/http/errors';
import type { HttpRequest } from '../../shared/http/request';
import type { HttpResponse } from '../../shared/http/response';
import { approvalsOf, withdrawApproval } from '../../shared/oauth/approvals';
import { findClient } from '../../shared/oauth/clients';
import { describeAccess } from '../../shared/oauth/consent';
import { CONNECTIONS_PATH, connectionsPage, messagePage, type ConnectionView } from '../../shared/oauth/consent-pages';
import { formParams, type Params } from '../../shared/oauth/form';
import { PASSWORD_PATH, signInPage } from '../../shared/oauth/pages';
import { randomAlphanumeric } from '../../shared/secrets';
import { signIn } from '../../shared/oauth/sign-in';
import { CONNECTIONS_SESSION_SECONDS, endSession, openSession, sessionCsrf, sessionOf, startSession, type SignInSession } from '../../shared/oauth/sign-in-sessions';
import { csrfCookie, csrfCookieName, CSRF_SECONDS, pageCookie, pageCookieName, redirect, refusedSignIn, sameSecret } from './browser-steps';

const SESSION_COOKIE = 'cdx_connections';

const sessionId = (req: HttpRequest): string | undefined => req.cookies[pageCookieName(SESSION_COOKIE)];

/** The connections page's session of this request (never a consent's). */
const connectionsSession = (session: SignInSession | undefined) => (session && !session.authorization ? session : undefined);

export function signInForm(status: number, extra: { error?: string; email?: string; csrf?: string; notice?: string } = {}): HttpResponse {
  const csrf = extra.csrf ?? randomAlphanumeric(32);
  return signInPage({
    status,
    clientName: '',
    carried: {},
    csrf,
    redirectUri: config().siteUrl,
    action: CONNECTIONS_PATH,
    intro: 'Sign in to see the applications connected to your account, and to withdraw their access.',
    passwordLink: PASSWORD_PATH,
    ...(extra.error ? { error: extra.error } : {}),
    ...(extra.notice ? { notice: extra.notice } : {}),
    ...(extra.email ? { email: extra.email } : {}),
    ...(extra.csrf ? {} : { cookies: [csrfCookie(csrf, CSRF_SECONDS)] }),
  });
}

const shownTime = (epochSeconds: number) => `${new Date(epochSeconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

async function listPage(session: SignInSession, id: string, notice?: string): Promise<HttpResponse> {
  const user = await getUser(session.userId);
  const connections: ConnectionView[] = [];
  for (const approval of await approvalsOf(session.userId)) {
    // A client whose registration expired, or whose metadata document cannot be read now, is still listed (and withdrawable).
    const client = await findClient(approval.clientId).catch(() => undefined);
    connections.push({
      clientId: approval.clientId,
      resource: approval.resource,
      clientName: client?.name ?? `${approval.clientId} (no longer registered)`,
      approvedAt: shownTime(approval.approvedAt),
      lines: describeAccess({ scope: approval.scope, resource: approval.resource, kind: session.kind, refreshes: client?.grantTypes.includes('refresh_token') ?? false }),
    });
  }
  return connectionsPage({ connections, csrf: sessionCsrf(id), email: user?.email ?? '', ...(notice ? { notice } : {}) });
}

/** `GET /o/connections/`: the list for a signed-in person, else the sign-in form. */
export async function showConnections(req: HttpRequest): Promise<HttpResponse> {
  const id = sessionId(req);
  const session = connectionsSession(await sessionOf(id));
  if (!session) return signInForm(200);
  return listPage(session, id!, req.query.get('done') === 'withdrawn' ? "The application's access was withdrawn: its tokens no longer work." : undefined);
}

function readForm(req: HttpRequest): { form: Params } | { page: HttpResponse } {
  try {
    return { form: formParams(req) };
  } catch (e) {
    if (isHttpError(e)) return { page: messagePage(400, 'This page cannot continue', e.message) };
    throw e;
  }
}

/** `POST /o/connections/`: the password sign-in of the page. */
export async function signInToConnections(req: HttpRequest): Promise<HttpResponse> {
  const read = readForm(req);
  if ('page' in read) return read.page;
  const { form } = read;
  const csrf = req.cookies[csrfCookieName()];
  if (!sameSecret(csrf, form.csrf)) return signInForm(403, { error: 'This sign-in form has expired or was not sent from this site. Please sign in again.' });
  const email = form.email ?? '';
  const password = form.password ?? '';
  if (!email || !password) return signInForm(400, { error: 'Enter your email and password.', email, csrf: csrf! });
  const outcome = await signIn(email, password);
  if (!outcome.ok) return refusedSignIn(outcome, (status, error) => signInForm(status, { error, email, csrf: csrf! }));
  const id = await startSession({ userId: outcome.user.id, kind: outcome.user.kind, seconds: CONNECTIONS_SESSION_SECONDS });
  return redirect(CONNECTIONS_PATH, [csrfCookie('', 0), pageCookie(SESSION_COOKIE, id, CONNECTIONS_SESSION_SECONDS)]);
}

const signedOut = () => messagePage(403, 'Signed out', 'Your sign-in on this page has ended or this form was not sent from this site. Sign in again.');

/** The signed-in session a post of the list page acts for: its cookie and its CSRF token. */
async function postingSession(req: HttpRequest, form: Params): Promise<{ session: SignInSession; id: string } | undefined> {
  const id = sessionId(req);
  const session = connectionsSession(await openSession(id, form.csrf));
  return session && { session, id: id! };
}

/** `POST /o/connections/withdraw/`: withdraws one of the signed-in person's approvals and ends the client's tokens. */
export async function withdrawConnection(req: HttpRequest): Promise<HttpResponse> {
  const read = readForm(req);
  if ('page' in read) return read.page;
  const { form } = read;
  const signedIn = await postingSession(req, form);
  if (!signedIn) return signedOut();
  const resource = form.resource;
  if ((resource !== 'service' && resource !== 'mcp') || !form.client_id) return messagePage(400, 'This page cannot continue', 'The form names no connection.');
  if (!(await withdrawApproval(signedIn.session.userId, form.client_id, resource))) return messagePage(404, 'No such connection', 'This application is not connected to your account (it may have been withdrawn already).');
  return redirect(`${CONNECTIONS_PATH}?done=withdrawn`);
}

/** `POST /o/connections/sign-out/`: ends the page's session. */
export async function signOutOfConnections(req: HttpRequest): Promise<HttpResponse> {
  const read = readForm(req);
  if ('page' in read) return read.page;
  const signedIn = await postingSession(req, read.form);
  if (!signedIn) return signedOut();
  await endSession(signedIn.id);
  return redirect(CONNECTIONS_PATH, [pageCookie(SESSION_COOKIE, '', 0)]);
}
