/**
 * Consent in headless Chromium: an assistant's authorization request (PKCE, resource=/mcp) signs
 * in, shows the consent page (the client's name as text, the redirect host, what it will see),
 * Allow sends the code back; later the person signs in to the connected applications page, sees
 * the assistant and withdraws it, after which the assistant's tokens no longer work.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInWorld, type SignInWorld } from '../support/sign-in-world';
import type { Gateway } from '../../local/gateway';
import type { OAuthClient, Practitioner } from '../../shared/directory/model';
import { createOAuthClient } from '../../shared/directory/oauth-clients';
import { pkcePair } from '../support/oauth';

const PASSWORD = 'a long demo password';
const NAME = '<b>Desk</b> Assistant & "friends"';
let gateway: Gateway;
let browser: Browser;
let doctor: Practitioner;
let assistant: OAuthClient;
let redirectUri: string;

let world: SignInWorld | undefined;

beforeAll(async () => {
  world = await signInWorld(PASSWORD);
  ({ gateway, browser, doctor } = world);
  // A path nothing serves (a 404 page): the code stays in the address bar for the test to take.
  redirectUri = `${gateway.url}/assistant/callback`;
  assistant = await createOAuthClient({ name: NAME, type: 'public', redirectUris: [redirectUri], grantTypes: ['authorization_code', 'refresh_token'] });
});
afterAll(() => world?.close());

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const initialize = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'browser-consent', version: '1' } } });
const callMcp = (token: string) => fetch(`${gateway.url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${token}` }, body: initialize });
const tokenRequest = (params: Record<string, string>) =>
  fetch(`${gateway.url}/o/token/`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ client_id: assistant.clientId, ...params }) });

describe('consent in Chromium', () => {
  it('signs in, approves the assistant, and later withdraws it on the connected applications page', async () => {
    const page = await browser.newPage();
    const { verifier, challenge } = pkcePair();
    const query = new URLSearchParams({ response_type: 'code', client_id: assistant.clientId, redirect_uri: redirectUri, scope: 'openid fhirUser user/*.rs', state: 'browser-1', code_challenge: challenge, code_challenge_method: 'S256', resource: `${gateway.url}/mcp` });
    await page.goto(`${gateway.url}/o/authorize/?${query}`);
    await page.fill('#email', doctor.email);
    await page.fill('#password', PASSWORD);
    await page.click('button[type=submit]');

    await page.waitForSelector('#allow');
    expect(await page.textContent('h1')).toBe('Allow access?');
    expect(await page.textContent('#client-name')).toBe(NAME);
    expect(await page.locator('#client-name b').count()).toBe(0);
    expect(await page.textContent('#redirect-host')).toBe(new URL(gateway.url).host);
    const access = await page.locator('#access li').allTextContents();
    expect(access[0]).toContain("read-only, through the assistants' endpoint /mcp");
    await page.click('#allow');
    await page.waitForURL(/code=/);
    const back = new URL(page.url());
    expect([back.searchParams.get('state'), back.searchParams.get('iss')]).toEqual(['browser-1', gateway.url]);

    const tokens = await (await tokenRequest({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: redirectUri, code_verifier: verifier })).json();
    expect((await callMcp(tokens.access_token)).status).toBe(200);

    await page.goto(`${gateway.url}/o/connections/`);
    expect(await page.textContent('h1')).toBe('Sign in');
    await page.fill('#email', doctor.email);
    await page.fill('#password', PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForSelector('.connection');
    expect(await page.textContent('h1')).toBe('Connected applications');
    expect(await page.textContent('.connection .client-name')).toBe(NAME);
    await page.click('.connection button[type=submit]');
    await page.waitForSelector('#none');
    expect(await page.textContent('#notice')).toContain('withdrawn');

    expect((await callMcp(tokens.access_token)).status).toBe(401);
    const refreshed = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token });
    expect([refreshed.status, (await refreshed.json()).error]).toEqual([400, 'invalid_grant']);
  });
});
