/**
 * The consent page (after sign-in, before a code: Allow or Deny) and the page of a person's
 * connected applications (each with a Withdraw button). Built on `htmlPage`: the same
 * Content-Security-Policy (no script, nonce'd style, `frame-ancestors 'none'`), `X-Frame-Options:
 * DENY` and `no-store` as the sign-in page; every value, the client's name first, HTML-escaped.
 */
import type { HttpResponse } from '../http/response';
import { escapeHtml, formTargetOf, hiddenInputs, htmlPage } from './pages';

export const CONSENT_PATH = '/o/consent/';
export const CONNECTIONS_PATH = '/o/connections/';
export const WITHDRAW_PATH = '/o/connections/withdraw/';
export const SIGN_OUT_PATH = '/o/connections/sign-out/';

const list = (lines: readonly string[]) => `<ul>${lines.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>`;
const hidden = hiddenInputs;

/** The host a redirect URI sends the person back to (its scheme for an app's custom scheme). */
export function redirectHostOf(uri: string): string {
  try {
    const url = new URL(uri);
    return url.host || url.protocol;
  } catch {
    return uri;
  }
}

export interface ConsentPageInput {
  clientName: string;
  redirectUri: string;
  lines: readonly string[];
  session: string;
  csrf: string;
  /** What the person approved before, when this asks for more. */
  wider?: boolean;
}

export function consentPage(input: ConsentPageInput): HttpResponse {
  const target = formTargetOf(input.redirectUri);
  return htmlPage({
    status: 200,
    title: 'Allow access? · Clinical Data Exchange',
    formTargets: target ? [target] : [],
    body: `<h1>Allow access?</h1>
<p><strong id="client-name">${escapeHtml(input.clientName)}</strong> asks to connect to your account.${input.wider ? ' It asks for more than you allowed before.' : ''}</p>
<p>After your answer you go back to <strong id="redirect-host">${escapeHtml(redirectHostOf(input.redirectUri))}</strong>.</p>
<p>If you allow it, it will be able to see:</p>
<div id="access">${list(input.lines)}</div>
<p>You can withdraw it at any time on the page of your <a href="${CONNECTIONS_PATH}">connected applications</a>.</p>
<form method="post" action="${CONSENT_PATH}" class="choices">
${hidden({ session: input.session, csrf: input.csrf })}
<button type="submit" name="decision" value="allow" id="allow">Allow</button>
<button type="submit" name="decision" value="deny" id="deny">Deny</button>
</form>`,
  });
}

export interface ConnectionView {
  clientId: string;
  resource: string;
  clientName: string;
  approvedAt: string;
  lines: readonly string[];
}

export function connectionsPage(input: { connections: readonly ConnectionView[]; csrf: string; email: string; notice?: string }): HttpResponse {
  const items = input.connections.map(
    (c) => `<li class="connection">
<strong class="client-name">${escapeHtml(c.clientName)}</strong>, approved <time>${escapeHtml(c.approvedAt)}</time>
${list(c.lines)}
<form method="post" action="${WITHDRAW_PATH}" class="inline">
${hidden({ csrf: input.csrf, client_id: c.clientId, resource: c.resource })}
<button type="submit">Withdraw</button>
</form>
</li>`,
  );
  return htmlPage({
    status: 200,
    title: 'Connected applications · Clinical Data Exchange',
    body: `<h1>Connected applications</h1>
<p>Signed in as <strong>${escapeHtml(input.email)}</strong>.</p>
${input.notice ? `<p role="status" id="notice">${escapeHtml(input.notice)}</p>` : ''}
${items.length > 0 ? `<ul class="apps">${items.join('\n')}</ul>` : '<p id="none">No application is connected to your account.</p>'}
<form method="post" action="${SIGN_OUT_PATH}">
${hidden({ csrf: input.csrf })}
<button type="submit">Sign out</button>
</form>`,
  });
}

/** A page that ends a consent or connections step: expired, forged, or done. */
export function messagePage(status: number, title: string, message: string): HttpResponse {
  return htmlPage({
    status,
    title: `${title} · Clinical Data Exchange`,
    body: `<h1>${escapeHtml(title)}</h1>
<p class="error" role="alert">${escapeHtml(message)}</p>
<p><a href="${CONNECTIONS_PATH}">Your connected applications</a></p>`,
  });
}
