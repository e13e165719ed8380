/**
 * Practitioner sign-in in headless Chromium: the start page's link runs authorization code + PKCE
 * from the browser (verifier in sessionStorage), the sign-in page takes the password, and
 * `/auth/callback` exchanges the code and shows a token that works.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInWorld, type SignInWorld } from '../support/sign-in-world';
import type { Gateway } from '../../local/gateway';
import type { Practitioner } from '../../shared/directory/model';

const PASSWORD = 'a long demo password';
let gateway: Gateway;
let browser: Browser;
let doctor: Practitioner;

let world: SignInWorld | undefined;

beforeAll(async () => {
  world = await signInWorld(PASSWORD);
  ({ gateway, browser, doctor } = world);
});
afterAll(() => world?.close());

describe('practitioner sign-in in Chromium', () => {
  it('signs in from the start page and shows a working access token', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${gateway.url}/`);
    await page.click('text=Sign in (practitioners)');
    await page.waitForURL(/\/o\/authorize\//);
    expect(await page.textContent('h1')).toBe('Sign in');

    await page.fill('#email', doctor.email);
    await page.fill('#password', 'not the password');
    await page.click('button[type=submit]');
    expect(await page.textContent('.error')).toBe('The email or password is not correct.');

    await page.fill('#password', PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForURL(/\/auth\/callback/);
    const token = await page.inputValue('#access-token', { timeout: 10_000 });
    expect(await page.textContent('h1')).toBe('Signed in');
    expect(await page.textContent('#usage')).toContain(`${gateway.url}/FHIR/R5/Patient`);
    // The code left the address bar; the verifier left sessionStorage.
    expect(page.url()).toBe(`${gateway.url}/auth/callback`);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);

    const me = await fetch(`${gateway.url}/o/userinfo/`, { headers: { authorization: `Bearer ${token}` } });
    expect((await me.json()).sub).toBe(String(doctor.id));

    // Reloading the callback cannot reuse anything.
    await page.reload();
    expect(await page.textContent('#sign-in-error')).toContain('not started in this browser tab');
    expect(errors).toEqual([]);
  });
});
