/** `/o/authorize/`: the sign-in page, its checks before and after sign-in, CSRF and lockout. */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../../shared/auth/passwords';
import { nowMs, resetClock, useClock } from '../../../shared/oauth/clock';
import { ensureServiceClients, WEB_CLIENT_ID } from '../../../shared/oauth/service-clients';
import { MAX_FAILURES } from '../../../shared/oauth/sign-in';
import { makeOrganization, makePractitioner } from '../../support/directory';
import { call, type TestResponse } from '../../support/invoke';
import { FORM, pkcePair, postForm } from '../../support/oauth';

const CALLBACK = 'http://localhost:8000/auth/callback';
const PASSWORD = 'correct horse battery staple';
let passwordHash: string;

beforeAll(async () => {
  await ensureServiceClients();
  passwordHash = await hashPassword(PASSWORD);
});
afterEach(() => resetClock());

function authorizeParams(overrides: Record<string, string | undefined> = {}) {
  const pkce = pkcePair();
  const params: Record<string, string> = {};
  const all = { response_type: 'code', client_id: WEB_CLIENT_ID, redirect_uri: CALLBACK, scope: 'openid email', state: 'st-123', code_challenge: pkce.challenge, code_challenge_method: 'S256', nonce: 'nonce-1', ...overrides };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) params[k] = v;
  return { params, verifier: pkce.verifier };
}

const show = (params: Record<string, string>) => call('GET', `/o/authorize/?${new URLSearchParams(params)}`);

/** The hidden fields and the CSRF cookie of a rendered sign-in page. */
function formOf(page: TestResponse, cookie?: string) {
  const fields: Record<string, string> = {};
  for (const m of page.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[m[1]!] = m[2]!.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c)));
  }
  const set = page.cookies.find((c) => c.startsWith('cdx_signin='));
  return { fields, cookie: cookie ?? set!.split(';')[0]! };
}

function submit(form: { fields: Record<string, string>; cookie: string }, email: string, password: string, cookie = form.cookie) {
  return call('POST', '/o/authorize/', { headers: { ...FORM, cookie }, body: new URLSearchParams({ ...form.fields, email, password }).toString() });
}

async function doctorWithPassword() {
  return makePractitioner({ organizations: [await makeOrganization()], passwordHash });
}

describe('the sign-in page', () => {
  it('renders a self-contained, CSP-protected form with a CSRF cookie', async () => {
    const page = await show(authorizeParams().params);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("default-src 'none'");
    expect(page.headers['content-security-policy']).toContain("form-action 'self' http://localhost:8000");
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.text).toContain('continue to <strong>Clinical Data Exchange</strong>');
    expect(page.text).not.toMatch(/<(script|link|img)\b/);
    const cookie = page.cookies.find((c) => c.startsWith('cdx_signin='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
  });

  it('signs in and sends a code, state and issuer to the redirect URI; the code exchanges with the verifier', async () => {
    const doctor = await doctorWithPassword();
    const { params, verifier } = authorizeParams();
    const form = formOf(await show(params));
    const done = await submit(form, doctor.email.toUpperCase(), PASSWORD);
    expect(done.status).toBe(303);
    const location = new URL(done.headers['location']!);
    expect(`${location.origin}${location.pathname}`).toBe(CALLBACK);
    expect(location.searchParams.get('state')).toBe('st-123');
    expect(location.searchParams.get('iss')).toBe('http://localhost:8000');
    const code = location.searchParams.get('code')!;
    const tokens = await postForm('/o/token/', { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, client_id: WEB_CLIENT_ID, code_verifier: verifier });
    expect(tokens.status).toBe(200);
    expect(tokens.json.scope).toBe('openid email');
    const idToken = JSON.parse(Buffer.from(tokens.json.id_token.split('.')[1], 'base64url').toString());
    expect(idToken).toMatchObject({ sub: String(doctor.id), nonce: 'nonce-1', aud: WEB_CLIENT_ID });
  });

  it('never redirects for an unknown client or an unregistered redirect URI (one byte off)', async () => {
    for (const overrides of [{ client_id: 'nope' }, { client_id: undefined }, { redirect_uri: `${CALLBACK}x` }, { redirect_uri: CALLBACK.replace('auth', 'Auth') }, { redirect_uri: 'https://evil.example/auth/callback' }, { redirect_uri: undefined }]) {
      const page = await show(authorizeParams(overrides).params);
      expect(page.status).toBe(400);
      expect(page.headers['location']).toBeUndefined();
      expect(page.text).toContain('This sign-in request cannot continue');
    }
  });

  it('reports request errors to the registered redirect URI: PKCE missing or plain, wrong response type', async () => {
    const cases: Array<[Record<string, string | undefined>, string]> = [
      [{ code_challenge_method: undefined }, 'invalid_request'],
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ code_challenge: undefined }, 'invalid_request'],
      [{ code_challenge: 'short' }, 'invalid_request'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ scope: 'openid "bad' }, 'invalid_scope'],
    ];
    for (const [overrides, error] of cases) {
      const res = await show(authorizeParams(overrides).params);
      expect(res.status).toBe(303);
      const location = new URL(res.headers['location']!);
      expect([location.searchParams.get('error'), location.searchParams.get('state')]).toEqual([error, 'st-123']);
    }
  });

  it('refuses a post without the CSRF cookie (or with another one) and issues no code', async () => {
    const doctor = await doctorWithPassword();
    const form = formOf(await show(authorizeParams().params));
    for (const cookie of ['', 'cdx_signin=forged', 'other=1']) {
      const res = await submit(form, doctor.email, PASSWORD, cookie);
      expect(res.status).toBe(403);
      expect(res.headers['location']).toBeUndefined();
      expect(res.text).toContain('expired or was not sent from this site');
    }
  });

  it('answers a wrong password and an unknown email alike, then locks the address for 15 minutes', async () => {
    const doctor = await doctorWithPassword();
    const form = formOf(await show(authorizeParams().params));
    const wrong = await submit(form, doctor.email, 'wrong');
    const unknown = await submit(form, `nobody-${Date.now()}@example.test`, 'wrong');
    expect([wrong.status, unknown.status]).toEqual([401, 401]);
    const message = 'The email or password is not correct.';
    expect(wrong.text).toContain(message);
    expect(unknown.text).toContain(message);

    for (let i = 1; i < MAX_FAILURES; i += 1) await submit(form, doctor.email, 'wrong');
    const locked = await submit(form, doctor.email, PASSWORD);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(800);
    expect(locked.text).toContain('Too many failed sign-in attempts');
    // An address without an account locks exactly the same way.
    const ghost = `ghost-${Date.now()}@example.test`;
    for (let i = 0; i < MAX_FAILURES; i += 1) await submit(form, ghost, 'wrong');
    expect((await submit(form, ghost, 'wrong')).status).toBe(429);

    const start = nowMs();
    useClock(() => start + 15 * 60 * 1000 + 1000);
    expect((await submit(form, doctor.email, PASSWORD)).status).toBe(303);
  });

  it('escapes injection-looking values it carries through the form', async () => {
    const { params } = authorizeParams({ state: '"><script>alert(1)</script>', nonce: "' onmouseover='x" });
    const page = await show(params);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('<script>alert(1)</script>');
    expect(formOf(page).fields.state).toBe('"><script>alert(1)</script>');
  });
});
