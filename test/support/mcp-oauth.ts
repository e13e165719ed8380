/**
 * An assistant's side of the MCP authorization flow against a running service over HTTP: an
 * `OAuthClientProvider` for the official SDK client that keeps what it is given in memory, and
 * whose "browser" (`redirectToAuthorization`) does what a person's browser would: opens the
 * authorize URL the SDK built, signs in with the account's email and password, approves the
 * consent page and follows the redirect to the loopback callback, which it records.
 */
import type { OAuthClientMetadata, OAuthClientProvider, OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client';
import { randomBytes } from 'node:crypto';
import type { TestResponse } from './invoke';
import { cookieOf, hiddenFields, isConsentPage } from './oauth-flow';

/** The form posts of the sign-in and consent pages. */
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
/** The sign-in form's CSRF cookie on plain http (the service's own name for it, without `__Host-`). */
const SIGN_IN_COOKIE = 'cdx_signin';

/** One HTTP exchange, redirects not followed, read into the shape the in-process tests read. */
export async function fetchPage(url: string | URL, init: RequestInit = {}): Promise<TestResponse> {
  const res = await fetch(url, { ...init, redirect: 'manual' });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => (headers[name] = value));
  return { status: res.status, headers, cookies: res.headers.getSetCookie(), text, json };
}

export interface BrowserVisit {
  /** The authorize URL the SDK sent the browser to. */
  authorizationUrl: URL;
  /** The consent page's text, when one was shown. */
  consentPage?: string;
  /** Where the service sent the browser back to: the redirect URI with `code`, `state` and `iss`. */
  callback: URL;
}

/**
 * The person at the browser: signs in at the authorize URL and approves the consent page. Fails
 * with the page's start when a step does not answer as a browser would expect.
 */
export async function signInAndApprove(site: string, authorizationUrl: URL, email: string, password: string): Promise<Omit<BrowserVisit, 'authorizationUrl'>> {
  const page = await fetchPage(authorizationUrl);
  if (page.status !== 200) throw new Error(`authorize: ${page.status} ${page.text.slice(0, 300)}`);
  const cookie = cookieOf(page, SIGN_IN_COOKIE);
  if (!cookie) throw new Error(`authorize: no ${SIGN_IN_COOKIE} cookie`);
  const post = (path: string, fields: Record<string, string>) =>
    fetchPage(new URL(path, site), { method: 'POST', headers: { ...FORM, cookie }, body: new URLSearchParams(fields).toString() });
  const signedIn = await post('/o/authorize/', { ...hiddenFields(page), email, password });
  const consentPage = isConsentPage(signedIn) ? signedIn.text : undefined;
  const done = consentPage ? await post('/o/consent/', { ...hiddenFields(signedIn), decision: 'allow' }) : signedIn;
  if (done.status !== 303 || !done.headers['location']) throw new Error(`sign-in: ${done.status} ${done.text.slice(0, 300)}`);
  return { ...(consentPage ? { consentPage } : {}), callback: new URL(done.headers['location']) };
}

/** A public client on a loopback redirect URI (RFC 8252), its registration, tokens and PKCE verifier in memory. */
export class AssistantProvider implements OAuthClientProvider {
  readonly redirectUrl: string;
  readonly visits: BrowserVisit[] = [];
  /** Each client information the SDK saved (the registration's answer). */
  readonly savedClients: StoredOAuthClientInformation[] = [];
  /** Each token set the SDK saved, in order (the code's, then each refresh's). */
  readonly savedTokens: StoredOAuthTokens[] = [];
  private verifier: string | undefined;
  /** Kept beside the verifier, so the SDK can check that the callback comes from the server it sent the browser to. */
  private discovery: OAuthDiscoveryState | undefined;
  private readonly stateValue = randomBytes(16).toString('base64url');

  constructor(
    private readonly site: string,
    private readonly account: { email: string; password: string },
    readonly clientName: string,
    callbackPort: number,
  ) {
    this.redirectUrl = `http://127.0.0.1:${callbackPort}/callback`;
  }

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: this.clientName, redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }

  state(): string {
    return this.stateValue;
  }

  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.savedClients.at(-1);
  }

  saveClientInformation(info: StoredOAuthClientInformation): void {
    this.savedClients.push(info);
  }

  tokens(): StoredOAuthTokens | undefined {
    return this.savedTokens.at(-1);
  }

  saveTokens(tokens: StoredOAuthTokens): void {
    this.savedTokens.push(tokens);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const visit = await signInAndApprove(this.site, authorizationUrl, this.account.email, this.account.password);
    this.visits.push({ authorizationUrl, ...visit });
  }

  /** The last callback the browser reached. */
  lastVisit(): BrowserVisit {
    const visit = this.visits.at(-1);
    if (!visit) throw new Error('the SDK never sent the browser to the authorization endpoint');
    return visit;
  }
}
