import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../local/gateway';
import { launchBrowser } from '../support/browser';
import { startTestGateway } from '../support/gateway';

let gateway: Gateway;
let browser: Browser;

beforeAll(async () => {
  [gateway, browser] = await Promise.all([startTestGateway(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await gateway?.close();
});

describe('portal site in Chromium', () => {
  it('renders the landing page and follows its link to the capability statement', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${gateway.url}/`);
    expect(await page.textContent('h1')).toBe('Clinical Data Exchange');
    await page.click('text=FHIR R5 capability statement');
    const body = JSON.parse((await page.textContent('body')) ?? '{}');
    expect(body.resourceType).toBe('CapabilityStatement');
    expect(errors).toEqual([]);
  });
});
