// @ts-check
/**
 * Practitioner sign-in from the browser: OAuth 2.0 authorization code + PKCE (S256) against this
 * service's own authorization server, as its public client `cdx-web`.
 * - On the start page, the "Sign in (practitioners)" link makes a verifier and a state, keeps them
 *   in sessionStorage (this tab only), and goes to `/o/authorize/`.
 * - On `/auth/callback`, it checks the state, exchanges the code at `/o/token/` with the verifier,
 *   and shows the access token and how to use it.
 */
const CLIENT_ID = 'cdx-web';
const SESSION_KEY = 'cdx.sign-in';
const SCOPE = 'openid email profile fhirUser';

const redirectUri = () => `${location.origin}/auth/callback`;

/** @param {Uint8Array} bytes */
function base64url(bytes) {
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** @param {number} size */
function randomText(size) {
  return base64url(crypto.getRandomValues(new Uint8Array(size)));
}

/** @param {string} verifier */
async function s256(verifier) {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

async function startSignIn() {
  const verifier = randomText(32);
  const state = randomText(16);
  sessionStorage.setItem(SESSION_KEY, JSON.stringify({ verifier, state }));
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT_ID,
    redirect_uri: redirectUri(),
    scope: SCOPE,
    state,
    code_challenge: await s256(verifier),
    code_challenge_method: 'S256',
  });
  location.assign(`/o/authorize/?${query}`);
}

/**
 * @param {string} tag
 * @param {Record<string, string>} attributes
 * @param {string} [text]
 */
function element(tag, attributes = {}, text) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** @param {HTMLElement} out @param {string} message */
function showError(out, message) {
  out.replaceChildren(element('p', { class: 'error', role: 'alert', id: 'sign-in-error' }, message));
}

/** @param {HTMLElement} out */
async function completeSignIn(out) {
  const params = new URLSearchParams(location.search);
  // The code is single use: keep it out of the history and of anything the page links to.
  history.replaceState(null, '', location.pathname);
  const stored = sessionStorage.getItem(SESSION_KEY);
  sessionStorage.removeItem(SESSION_KEY);
  if (params.get('error')) return showError(out, `Sign-in failed: ${params.get('error_description') ?? params.get('error')}`);
  const session = stored ? JSON.parse(stored) : undefined;
  if (!session || session.state !== params.get('state')) {
    return showError(out, 'This sign-in was not started in this browser tab (or was already completed). Start again from the start page.');
  }
  const response = await fetch('/o/token/', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: params.get('code') ?? '',
      redirect_uri: redirectUri(),
      client_id: CLIENT_ID,
      code_verifier: session.verifier,
    }),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) return showError(out, `The token request failed: ${body.error_description ?? body.error ?? response.status}`);
  const minutes = Math.round(body.expires_in / 60);
  const example = `curl -H "Authorization: Bearer ${body.access_token}" ${location.origin}/FHIR/R5/Patient`;
  const heading = document.querySelector('h1');
  if (heading) heading.textContent = 'Signed in';
  out.replaceChildren(
    element('p', {}, `Your access token (valid ${minutes} minutes; scope: ${body.scope}):`),
    element('textarea', { id: 'access-token', readonly: '', rows: '6' }, body.access_token),
    element('p', {}, 'Send it as a Bearer token with every request to the FHIR API or the management API, for example:'),
    element('pre', { id: 'usage' }, example),
  );
}

const link = document.getElementById('sign-in');
if (link) {
  link.addEventListener('click', (event) => {
    event.preventDefault();
    void startSignIn();
  });
}
const result = document.getElementById('signin-result');
if (result && location.pathname.replace(/\/$/, '') === '/auth/callback') {
  completeSignIn(result).catch((e) => showError(result, `Sign-in failed: ${e instanceof Error ? e.message : e}`));
}
