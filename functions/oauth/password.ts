/**
 * `GET/POST /o/password/`: a patient invited to the portal sets a password with the invitation
 * (`shared/oauth/invitation-passwords.ts` holds the rules), then signs in on the page they came
 * from: an authorization request's sign-in (its parameters carried through the form, checked again
 * before the password is set), else the connected applications'. The form is protected against cross-site posting as the
 * sign-in form is (the same double-submit cookie, `browser-steps.ts`).
 */
import { randomAlphanumeric } from '../../shared/secrets';
import { isHttpError } from '../../shared/http/errors';
import type { HttpRequest } from '../../shared/http/request';
import type { HttpResponse } from '../../shared/http/response';
import { formParams, parseParams, type Params } from '../../shared/oauth/form';
import { setPasswordWithInvitation } from '../../shared/oauth/invitation-passwords';
import { passwordPage, problemPage } from '../../shared/oauth/pages';
import { carried, checkedRequest, signInAgain } from './authorize';
import { csrfCookie, csrfCookieName, CSRF_SECONDS, sameSecret } from './browser-steps';
import { signInForm } from './connections';

function page(status: number, params: Params, extra: { error?: string; csrf?: string; headers?: Readonly<Record<string, string>> } = {}): HttpResponse {
  const csrf = extra.csrf ?? randomAlphanumeric(32);
  return passwordPage({
    status,
    csrf,
    carried: carried(params),
    ...(extra.error ? { error: extra.error } : {}),
    ...(extra.headers ? { headers: extra.headers } : {}),
    ...(extra.csrf ? {} : { cookies: [csrfCookie(csrf, CSRF_SECONDS)] }),
  });
}

function read(parse: () => Params): { params: Params } | { page: HttpResponse } {
  try {
    return { params: parse() };
  } catch (e) {
    if (isHttpError(e)) return { page: problemPage(400, e.message) };
    throw e;
  }
}

/** `GET /o/password/`: the form, carrying the authorization request it came from (if any). */
export async function showPasswordForm(req: HttpRequest): Promise<HttpResponse> {
  const got = read(() => parseParams(req.query.toString()));
  return 'page' in got ? got.page : page(200, got.params);
}

/** `POST /o/password/`: sets the password, then the sign-in form with the account's email filled in. */
export async function submitPassword(req: HttpRequest): Promise<HttpResponse> {
  const got = read(() => formParams(req));
  if ('page' in got) return got.page;
  const { params } = got;
  const csrf = req.cookies[csrfCookieName()];
  if (!sameSecret(csrf, params.csrf)) return page(403, params, { error: 'This form has expired or was not sent from this site. Please try again.' });
  // The authorization request it goes back to must hold before anything is set (else its problem page, or its redirect).
  const request = params.client_id === undefined ? undefined : await checkedRequest(carried(params));
  if (request && !('request' in request)) return request;
  let email: string;
  try {
    ({ email } = await setPasswordWithInvitation({ invitation: params.invitation ?? '', password: params.password ?? '', repeated: params.repeated ?? '', ...(req.sourceIp ? { sourceIp: req.sourceIp } : {}) }));
  } catch (e) {
    if (!isHttpError(e)) throw e;
    return page(e.status, params, { error: e.message, csrf: csrf!, headers: e.headers });
  }
  req.log.info('password set with an invitation');
  const notice = `Your password is set. Sign in with your email address, ${email}, and that password.`;
  return request ? signInAgain(request, email, notice) : signInForm(200, { email, notice });
}
