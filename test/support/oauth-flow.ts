/**
 * The authorization code flow with PKCE as an assistant runs it against `/o/authorize/` and
 * `/o/token/`, for any client: the sign-in page, the form posted back with its cookie, the code
 * exchanged, refreshed.
 */
import { expect } from 'vitest';
import { makeOrganization, makePractitioner } from './directory';
import { call, type TestResponse } from './invoke';
import { FORM, pkcePair, postForm } from './oauth';

export interface FlowClient {
  clientId: string;
  redirectUri: string;
}

export function authorizeUrl(client: FlowClient, challenge: string, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: 'openid fhirUser user/*.rs offline_access',
    state: 'st-1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  });
  return `/o/authorize/?${query}`;
}

/** Page text with its numeric character references decoded. */
export const unescapeHtml = (text: string) => text.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c)));

/** The hidden fields of a page's form (the sign-in's carried parameters, the consent page's session and CSRF token). */
export function hiddenFields(page: TestResponse): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of page.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[m[1]!] = unescapeHtml(m[2]!);
  }
  return fields;
}

export const cookieOf = (res: TestResponse, name: string) => res.cookies.find((c) => c.startsWith(`${name}=`))?.split(';')[0];

/** Answers a consent page (`allow`, `deny`, or anything else to see it refused), with its hidden fields and the sign-in cookie. */
export function consentTo(page: TestResponse, cookie: string, decision: string, overrides: Record<string, string> = {}): Promise<TestResponse> {
  return call('POST', '/o/consent/', { headers: { ...FORM, ...(cookie ? { cookie } : {}) }, body: new URLSearchParams({ ...hiddenFields(page), decision, ...overrides }).toString() });
}

const isConsentPage = (res: TestResponse) => res.status === 200 && res.text.includes('action="/o/consent/"');

/** Signs a new practitioner in for the client (approving its consent page when one is shown); the code, its verifier and the redirect. */
export async function signInFor(client: FlowClient, passwordHash: string, password: string, extra: Record<string, string> = {}): Promise<{ code: string; verifier: string; location: URL }> {
  const doctor = await makePractitioner({ organizations: [await makeOrganization()], passwordHash });
  const { verifier, challenge } = pkcePair();
  const page = await call('GET', authorizeUrl(client, challenge, extra));
  expect(page.status, page.text.slice(0, 300)).toBe(200);
  const cookie = cookieOf(page, 'cdx_signin')!;
  const signedIn = await call('POST', '/o/authorize/', { headers: { ...FORM, cookie }, body: new URLSearchParams({ ...hiddenFields(page), email: doctor.email, password }).toString() });
  const done = isConsentPage(signedIn) ? await consentTo(signedIn, cookie, 'allow') : signedIn;
  expect(done.status, done.text.slice(0, 300)).toBe(303);
  const location = new URL(done.headers['location']!);
  return { code: location.searchParams.get('code')!, verifier, location };
}

export const exchangeCode = (client: FlowClient, code: string, verifier: string, extra: Record<string, string> = {}): Promise<TestResponse> =>
  postForm('/o/token/', { grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, client_id: client.clientId, code_verifier: verifier, ...extra });

export const refreshFor = (client: FlowClient, refreshToken: string): Promise<TestResponse> =>
  postForm('/o/token/', { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId });
