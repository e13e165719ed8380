/**
 * The server-rendered pages of the OAuth server: the practitioners' sign-in form, the page for a
 * sign-in request that cannot be trusted, and `/auth/callback`. Self-contained HTML (no external
 * assets), every value HTML-escaped, and a Content-Security-Policy that allows only the page's own
 * style (by nonce), its own origin's script, and form posts to this origin and the client's.
 */
import { randomBytes } from 'node:crypto';
import type { HttpResponse } from '../http/response';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A form's hidden fields, names and values escaped. */
export const hiddenInputs = (fields: Readonly<Record<string, string>>): string =>
  Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f6f8;color:#1d2733}
main{max-width:34rem;margin:3rem auto;background:#fff;padding:2rem;border-radius:8px;box-shadow:0 1px 4px #0002}
h1{font-size:1.4rem;margin-top:0}label{display:block;margin:.8rem 0 .2rem;font-weight:600}
input[type=email],input[type=password],input[type=text]{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem}
button{margin-top:1.2rem;padding:.6rem 1.4rem;font-size:1rem;cursor:pointer}
.choices{display:flex;gap:1rem}.inline{display:inline}ul.apps{padding:0;list-style:none}ul.apps>li{border-top:1px solid #dde;padding:.8rem 0}
.error{background:#fdecea;color:#8a1c12;padding:.6rem .8rem;border-radius:4px}
pre,textarea{width:100%;box-sizing:border-box;white-space:pre-wrap;word-break:break-all;background:#f0f2f4;padding:.6rem;font-size:.85rem}
`;

export interface PageOptions {
  status: number;
  title: string;
  /** HTML already escaped where it holds values. */
  body: string;
  /** Origins (or schemes) a form on the page may post to, besides this origin. */
  formTargets?: readonly string[];
  /** Whether the page loads this origin's scripts. */
  scripts?: boolean;
  cookies?: string[];
}

export function htmlPage(options: PageOptions): HttpResponse {
  const nonce = randomBytes(16).toString('base64');
  const csp = [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    ...(options.scripts ? ["script-src 'self'", "connect-src 'self'"] : []),
    `form-action 'self'${(options.formTargets ?? []).map((t) => ` ${t}`).join('')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.title)}</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<main>
${options.body}
</main>
</body>
</html>`;
  return {
    status: options.status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': csp,
      'Cache-Control': 'no-store',
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    },
    body: html,
    ...(options.cookies ? { cookies: options.cookies } : {}),
  };
}

/** Where a redirect URI's form post may go, as a CSP source (its origin, or its scheme for an app's custom scheme). */
export function formTargetOf(uri: string): string | undefined {
  try {
    const url = new URL(uri);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
  } catch {
    return undefined;
  }
}

export interface SignInPageInput {
  status: number;
  clientName: string;
  /** The authorization request's parameters, carried through the form. */
  carried: Readonly<Record<string, string>>;
  csrf: string;
  email?: string;
  error?: string;
  redirectUri: string;
  cookies?: string[];
  /** Where the form posts (the authorization endpoint when absent). */
  action?: string;
  /** What signing in leads to, as a sentence (HTML already escaped); the client's name when absent. */
  intro?: string;
  /** A line above the form (the password just set), shown as text. */
  notice?: string;
  /** The page where an invited patient sets a password, with what it carries back here (absent: no link). */
  passwordLink?: string;
}

/** Where a patient invited to the portal sets a password with the invitation (`functions/oauth/password.ts`). */
export const PASSWORD_PATH = '/o/password/';

/** The link to the password page, carrying an authorization request's parameters back to its sign-in. */
export function passwordLinkFor(carried: Readonly<Record<string, string>>): string {
  const query = new URLSearchParams(carried).toString();
  return query ? `${PASSWORD_PATH}?${query}` : PASSWORD_PATH;
}

export function signInPage(input: SignInPageInput): HttpResponse {
  const hidden = hiddenInputs(input.carried);
  const target = formTargetOf(input.redirectUri);
  return htmlPage({
    status: input.status,
    title: 'Sign in · Clinical Data Exchange',
    formTargets: target ? [target] : [],
    ...(input.cookies ? { cookies: input.cookies } : {}),
    body: `<h1>Sign in</h1>
<p>${input.intro ?? `Sign in with your account to continue to <strong>${escapeHtml(input.clientName)}</strong>.`}</p>
${input.notice ? `<p role="status" id="notice">${escapeHtml(input.notice)}</p>` : ''}
${input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : ''}
<form method="post" action="${escapeHtml(input.action ?? '/o/authorize/')}">
${hidden}
<input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(input.email ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
${input.passwordLink ? `<p>Invited to the patient portal and no password yet? <a id="set-password" href="${escapeHtml(input.passwordLink)}">Set one with your invitation</a>.</p>` : ''}`,
  });
}

export interface PasswordPageInput {
  status: number;
  csrf: string;
  /** The parameters carried back to the sign-in page after (an authorization request's), as the form's hidden fields. */
  carried: Readonly<Record<string, string>>;
  error?: string;
  cookies?: string[];
  headers?: Readonly<Record<string, string>>;
}

/** The page where an invited patient sets a password with the invitation link or code. */
export function passwordPage(input: PasswordPageInput): HttpResponse {
  const hidden = hiddenInputs(input.carried);
  const page = htmlPage({
    status: input.status,
    title: 'Set a password · Clinical Data Exchange',
    ...(input.cookies ? { cookies: input.cookies } : {}),
    body: `<h1>Set a password</h1>
<p>If your care team invited you to the patient portal, your invitation lets you choose a password once, to sign in to the applications and assistants you connect to your account.</p>
<p>Use it while it still works: within 7 days of receiving it, and within 12 hours of first opening it in the portal.</p>
${input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : ''}
<form method="post" action="${PASSWORD_PATH}">
${hidden}
<input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">
<label for="invitation">Invitation link or code</label>
<input id="invitation" name="invitation" type="text" autocomplete="off" spellcheck="false" required>
<label for="password">New password (at least 12 characters)</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="12" required>
<label for="repeated">The same password again</label>
<input id="repeated" name="repeated" type="password" autocomplete="new-password" minlength="12" required>
<button type="submit">Set the password</button>
</form>`,
  });
  return input.headers ? { ...page, headers: { ...page.headers, ...input.headers } } : page;
}

export function problemPage(status: number, message: string): HttpResponse {
  return htmlPage({
    status,
    title: 'Sign-in problem · Clinical Data Exchange',
    body: `<h1>This sign-in request cannot continue</h1>
<p class="error" role="alert">${escapeHtml(message)}</p>
<p>Go back to the application you came from and start again.</p>`,
  });
}

/** `/auth/callback`: the script of the landing page finishes the sign-in here (it holds the PKCE verifier). */
export function callbackPage(): HttpResponse {
  return htmlPage({
    status: 200,
    title: 'Signed in · Clinical Data Exchange',
    scripts: true,
    body: `<h1>Completing sign-in…</h1>
<div id="signin-result" aria-live="polite"><p>Exchanging the authorization code for a token.</p></div>
<p><a href="/">Back to the start page</a></p>
<script type="module" src="/sign-in.js"></script>`,
  });
}
