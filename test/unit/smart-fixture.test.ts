/** The SMART fixture itself: discovery, consent, PKCE, the patient context and the paged labs. */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOGUS_ID, LONG_ID, startSmartFixture, type SmartFixture } from '../fixtures/smart-server';

const REDIRECT = 'http://localhost:9/clients/portal/callback';
let fixture: SmartFixture;

beforeAll(async () => {
  fixture = await startSmartFixture({ mode: 'R4', count: 7, pageSize: 3, redirectUri: REDIRECT });
});
afterAll(() => fixture?.close());

const verifier = randomBytes(32).toString('base64url');
const challenge = createHash('sha256').update(verifier).digest('base64url');

async function consent(decision: 'allow' | 'deny', overrides: Record<string, string> = {}): Promise<URL> {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: fixture.clientId,
    redirect_uri: REDIRECT,
    scope: 'openid profile launch/patient patient/Observation.read',
    state: 'st-1',
    aud: fixture.iss,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...overrides,
  });
  const page = await fetch(`${fixture.origin}/authorize?${query}`);
  const html = await page.text();
  const request = /name="request" value="([^"]+)"/.exec(html)?.[1];
  if (!request) throw new Error(`no consent form: ${page.status} ${html}`);
  const answer = await fetch(`${fixture.origin}/authorize`, { method: 'POST', body: new URLSearchParams({ request, decision }), redirect: 'manual' });
  return new URL(answer.headers.get('location')!);
}

const exchange = (code: string, codeVerifier = verifier, redirectUri = REDIRECT) =>
  fetch(`${fixture.origin}/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: fixture.clientId, code_verifier: codeVerifier }),
  });

describe('SMART fixture', () => {
  it('publishes SMART discovery and an R4 CapabilityStatement', async () => {
    const smart = await (await fetch(`${fixture.iss}/.well-known/smart-configuration`)).json();
    expect(smart.code_challenge_methods_supported).toEqual(['S256']);
    expect(smart.capabilities).toEqual(expect.arrayContaining(['launch-standalone', 'client-public', 'context-standalone-patient', 'permission-patient']));
    expect((await (await fetch(`${fixture.iss}/metadata`)).json()).fhirVersion).toBe('4.0.1');
  });

  it('refuses an unregistered redirect URI without redirecting', async () => {
    const res = await fetch(`${fixture.origin}/authorize?${new URLSearchParams({ client_id: fixture.clientId, redirect_uri: `${REDIRECT}/` })}`, { redirect: 'manual' });
    expect(res.status).toBe(400);
  });

  it('denies with access_denied and the state', async () => {
    const back = await consent('deny');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('st-1');
  });

  it('checks PKCE, then serves the labs page by page', async () => {
    const code = (await consent('allow')).searchParams.get('code')!;
    expect((await exchange(code, randomBytes(32).toString('base64url'))).status).toBe(400);
    const code2 = (await consent('allow')).searchParams.get('code')!;
    const token = await (await exchange(code2)).json();
    expect(token.patient).toBe(fixture.patientId);
    expect(token.id_token).toBeTypeOf('string');
    const ids: string[] = [];
    let next: string | undefined = `${fixture.iss}/Observation?category=laboratory`;
    let pages = 0;
    while (next) {
      const bundle: any = await (await fetch(next, { headers: { authorization: `Bearer ${token.access_token}` } })).json();
      ids.push(...bundle.entry.map((e: any) => e.resource.id));
      next = bundle.link.find((l: any) => l.relation === 'next')?.url;
      pages++;
    }
    expect(pages).toBe(3);
    expect(ids).toHaveLength(7);
    expect(ids).toContain(LONG_ID);
    expect(ids).toContain(BOGUS_ID);
    expect(LONG_ID).toHaveLength(70);
  });

  it('leaves the patient out of the token response when launch/patient is withheld', async () => {
    fixture.faults.withholdPatientContext = true;
    try {
      const code = (await consent('allow')).searchParams.get('code')!;
      const token = await (await exchange(code)).json();
      expect(token.patient).toBeUndefined();
      expect(token.scope).not.toContain('launch/patient');
    } finally {
      fixture.faults.withholdPatientContext = false;
    }
  });
});
