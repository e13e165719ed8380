/**
 * The portal's invitation flow over HTTP through the local gateway, as a browser app on another
 * origin would run it (CORS preflights included): issue -> redeem -> token -> use -> refresh -> revoke.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../local/gateway';
import { config, resetConfig } from '../../shared/config';
import { getOAuthClient } from '../../shared/directory/oauth-clients';
import { ensureServiceClients, PORTAL_CLIENT_ID } from '../../shared/oauth/service-clients';
import { makeOrganization, makePatient, makePractitioner } from '../support/directory';
import { startTestGateway } from '../support/gateway';

let gateway: Gateway;
const APP_ORIGIN = 'https://app.example';

beforeAll(async () => {
  gateway = await startTestGateway();
  process.env.SITE_URL = gateway.url;
  resetConfig();
  await ensureServiceClients();
});
afterAll(async () => {
  delete process.env.SITE_URL;
  resetConfig();
  await gateway?.close();
});

async function form(url: string, params: Record<string, string>) {
  const preflight = await fetch(url, { method: 'OPTIONS', headers: { origin: APP_ORIGIN, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
  const res = await fetch(url, { method: 'POST', headers: { origin: APP_ORIGIN, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params) });
  expect(res.headers.get('access-control-allow-origin')).toBe('*');
  return { status: res.status, json: res.status === 200 && url.endsWith('/o/revoke_token/') ? {} : await res.json() };
}

describe('invitation flow over HTTP', () => {
  it('runs end to end', async () => {
    const org = await makeOrganization();
    const doctor = await makePractitioner({ organizations: [org] });
    const patient = await makePatient({ organizations: [org] });
    const portal = (await getOAuthClient(PORTAL_CLIENT_ID))!;

    const created = await fetch(`${gateway.url}/api/v1/invitation`, {
      method: 'POST',
      headers: { authorization: `Bearer ${doctor.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ patient_id: patient.id, client_id: portal.id, send_email: false }),
    });
    expect(created.status).toBe(201);
    const invitation = await created.json();
    const code = new URL(invitation.invitationLink).searchParams.get('code')!;
    expect(code.startsWith(`${new URL(config().siteUrl).host}_`)).toBe(true);
    const [host, token] = code.split('_') as [string, string];

    // What the portal page does: redeem at the host of the code, verifier = unpadded Base64 of the token.
    const redeemed = await fetch(`http://${host}/api/v1/invitation/${token}`, { method: 'POST' });
    expect(redeemed.status).toBe(200);
    const grantDocument = await redeemed.json();
    expect(grantDocument.token_endpoint).toBe(`${gateway.url}/o/token/`);
    const verifier = btoa(token).replace(/=+$/, '');
    const tokens = await form(grantDocument.token_endpoint, { ...grantDocument.grant, code_verifier: verifier });
    expect(tokens.status).toBe(200);
    expect(tokens.json.patient).toBe(String(patient.id));

    const me = await fetch(`${gateway.url}/o/userinfo/`, { headers: { authorization: `Bearer ${tokens.json.access_token}` } });
    expect((await me.json()).patient).toBe(String(patient.id));

    const refreshed = await form(`${gateway.url}/o/token/`, { grant_type: 'refresh_token', refresh_token: tokens.json.refresh_token, client_id: PORTAL_CLIENT_ID });
    expect(refreshed.status).toBe(200);
    const revoked = await form(`${gateway.url}/o/revoke_token/`, { token: refreshed.json.refresh_token, client_id: PORTAL_CLIENT_ID });
    expect(revoked.status).toBe(200);
    const after = await fetch(`${gateway.url}/o/userinfo/`, { headers: { authorization: `Bearer ${refreshed.json.access_token}` } });
    expect(after.status).toBe(401);
    expect(after.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });
});
