/**
 * An invited patient in headless Chromium: an assistant's sign-in page (PKCE, resource=/mcp) links
 * to the page where the patient sets a password with the invitation link; that page leads back to
 * the same sign-in, the account's email filled in; the patient signs in, allows the assistant, and
 * the assistant's code gives a token for /mcp acting as that patient.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../local/gateway';
import type { OAuthClient } from '../../shared/directory/model';
import { createOAuthClient, getOAuthClient } from '../../shared/directory/oauth-clients';
import { getPatient } from '../../shared/directory/patients';
import { getUser } from '../../shared/directory/users';
import { PORTAL_CLIENT_ID } from '../../shared/oauth/service-clients';
import { invitationWorld, invite, pkcePair } from '../support/oauth';
import { signInWorld, type SignInWorld } from '../support/sign-in-world';

const PASSWORD = 'my own long passphrase';
let gateway: Gateway;
let browser: Browser;
let assistant: OAuthClient;
let redirectUri: string;
let world: SignInWorld | undefined;

beforeAll(async () => {
  world = await signInWorld('the practitioner password');
  ({ gateway, browser } = world);
  // A path nothing serves (a 404 page): the code stays in the address bar for the test to take.
  redirectUri = `${gateway.url}/assistant/callback`;
  assistant = await createOAuthClient({ name: 'Pocket Assistant', type: 'public', redirectUris: [redirectUri], grantTypes: ['authorization_code', 'refresh_token'] });
});
afterAll(() => world?.close());

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

describe('an invited patient in Chromium', () => {
  it('sets a password from an assistant\'s sign-in page, signs in with it and allows the assistant', async () => {
    const { doctor, patient } = await invitationWorld();
    const portal = (await getOAuthClient(PORTAL_CLIENT_ID))!;
    const invitation = await invite(doctor.token, patient.id, portal.id);
    const page = await browser.newPage();
    const { verifier, challenge } = pkcePair();
    const query = new URLSearchParams({ response_type: 'code', client_id: assistant.clientId, redirect_uri: redirectUri, scope: 'openid fhirUser patient/*.rs offline_access', state: 'invited-1', code_challenge: challenge, code_challenge_method: 'S256', resource: `${gateway.url}/mcp` });
    await page.goto(`${gateway.url}/o/authorize/?${query}`);
    await page.click('#set-password');

    await page.waitForURL(/\/o\/password\/\?/);
    expect(await page.textContent('h1')).toBe('Set a password');
    await page.fill('#invitation', invitation.invitationLink);
    await page.fill('#password', PASSWORD);
    await page.fill('#repeated', 'not the same passphrase');
    await page.click('button[type=submit]');
    await page.waitForSelector('.error');
    expect(await page.textContent('.error')).toBe('The two passwords are not the same.');
    await page.fill('#invitation', invitation.invitationLink);
    await page.fill('#password', PASSWORD);
    await page.fill('#repeated', PASSWORD);
    await page.click('button[type=submit]');

    await page.waitForSelector('#notice');
    const account = (await getUser((await getPatient(patient.id))!.userId!))!;
    expect(await page.textContent('#notice')).toContain(account.email);
    expect(await page.textContent('h1')).toBe('Sign in');
    expect(await page.inputValue('#email')).toBe(account.email);
    expect(await page.textContent('main')).toContain('Pocket Assistant');
    await page.fill('#password', PASSWORD);
    await page.click('button[type=submit]');

    await page.waitForSelector('#allow');
    expect(await page.textContent('#access')).toContain('your readings (Observations)');
    await page.click('#allow');
    await page.waitForURL(/code=/);
    const back = new URL(page.url());
    expect([back.searchParams.get('state'), back.searchParams.get('iss')]).toEqual(['invited-1', gateway.url]);

    const tokenResponse = await fetch(`${gateway.url}/o/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: assistant.clientId, code: back.searchParams.get('code')!, redirect_uri: redirectUri, code_verifier: verifier, resource: `${gateway.url}/mcp` }),
    });
    const tokens = await tokenResponse.json();
    expect(tokenResponse.status).toBe(200);
    expect(tokens.patient).toBe(String(patient.id));
    const answer = await fetch(`${gateway.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${tokens.access_token}` }, body: ping });
    expect(answer.status).toBe(200);
  });
});
