/**
 * The patient portal's world for browser tests and the benchmark: the local gateway configured
 * for a SMART fixture, a patient with an invitation, and the steps a patient takes in the browser.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { sourceUriPrefix } from '../../shared/fhir/constants';
import { resetConfig } from '../../shared/config';
import { getOAuthClient } from '../../shared/directory/oauth-clients';
import type { Patient } from '../../shared/directory/model';
import { issueInvitation } from '../../shared/oauth/invitations';
import { ensureServiceClients, PORTAL_CLIENT_ID } from '../../shared/oauth/service-clients';
import { portalConfig, PORTAL_CALLBACK_PATH } from '../../shared/portal/config';
import type { Gateway } from '../../local/gateway';
import { startSmartFixture, type SmartFixture, type SmartFixtureOptions } from '../fixtures/smart-server';
import { launchBrowser } from './browser';
import { makeDataSource, makeOrganization, makePatient } from './directory';
import { startTestGateway } from './gateway';

export interface PortalWorld {
  gateway: Gateway;
  fixture: SmartFixture;
  close(): Promise<void>;
}

/** The fixture, then the gateway pointed at it (SITE_URL = the gateway), and the service's clients. */
export async function startPortalWorld(options: SmartFixtureOptions = {}): Promise<PortalWorld> {
  const fixture = await startSmartFixture(options);
  const gateway = await startTestGateway({ portal: portalConfig({ iss: fixture.iss, clientId: fixture.clientId }), asSite: true });
  fixture.redirectUri = `${gateway.url}${PORTAL_CALLBACK_PATH}`;
  await ensureServiceClients();
  await makeDataSource({ name: 'Patient portal', type: 'patient_app' });
  return {
    gateway,
    fixture,
    close: async () => {
      delete process.env.SITE_URL;
      resetConfig();
      await fixture.close().catch(() => undefined);
      await gateway.close();
    },
  };
}

/** A whole flow in Chromium takes seconds; on 2 cores shared with the rest of the suite, more. */
export const FLOW_TIMEOUT = 120_000;

/** Registers a browser suite's hooks: the portal world and a Chromium, both closed after the suite. */
export function portalSuite(options: SmartFixtureOptions): { world: PortalWorld; browser: Browser } {
  const suite = {} as { world: PortalWorld; browser: Browser };
  beforeAll(async () => {
    [suite.world, suite.browser] = await Promise.all([startPortalWorld(options), launchBrowser()]);
  });
  afterAll(async () => {
    await suite.browser?.close();
    await suite.world?.close();
  });
  return suite;
}

/** The Observations stored under one FHIR Source, read back through the FHIR API (every page). */
export async function sourceRows(world: PortalWorld, sourceId: number, token: string): Promise<Array<Record<string, any>>> {
  const rows: Array<Record<string, any>> = [];
  let next: string | undefined = `${world.gateway.url}/FHIR/R5/Observation?_source=${encodeURIComponent(`${sourceUriPrefix()}${sourceId}`)}&_count=100`;
  while (next) {
    const res = await fetch(next, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const bundle: any = await res.json();
    rows.push(...(bundle.entry ?? []).filter((e: any) => e.search?.mode !== 'outcome').map((e: any) => e.resource));
    next = bundle.link?.find((l: any) => l.relation === 'next')?.url;
  }
  return rows;
}

let hospitalPatients = 0;

/**
 * A patient without a login, in an organization, and a fresh invitation link for them; the
 * fixture's sign-in becomes their own hospital record (a hospital record links to one patient).
 */
export async function invitedPatient(fixture: SmartFixture): Promise<{ patient: Patient; link: string }> {
  fixture.patientId = `smart-pat-${process.pid}-${++hospitalPatients}`;
  const patient = await makePatient({ organizations: [await makeOrganization()] });
  return { patient, link: await inviteAgain(patient) };
}

export async function inviteAgain(patient: Patient): Promise<string> {
  const client = (await getOAuthClient(PORTAL_CLIENT_ID))!;
  return (await issueInvitation({ patient, client, sendEmail: false })).invitationLink;
}

/** A 390-pixel-wide phone. */
export const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

export async function phonePage(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext(PHONE);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { page, errors };
}

/** Opens the link and answers the hospital's consent page; resolves when the portal page is done or shows a problem. */
export async function runPortal(page: Page, link: string, fixture: SmartFixture, decision: 'Allow' | 'Deny' = 'Allow'): Promise<'done' | 'problem'> {
  await page.goto(link);
  // Either the hospital's consent page comes, or the portal stops early with a problem.
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (page.url().startsWith(`${fixture.origin}/authorize`)) {
      await page.getByRole('button', { name: decision }).click();
      break;
    }
    if (await page.$('body[data-state]').catch(() => null)) break;
    if (Date.now() > deadline) throw new Error(`neither consent nor a result at ${page.url()}`);
    await page.waitForTimeout(50);
  }
  await page.waitForSelector('body[data-state]', { timeout: 60_000 });
  return (await page.getAttribute('body', 'data-state')) as 'done' | 'problem';
}

export async function counts(page: Page) {
  const text = async (id: string) => (await page.textContent(`#${id}`))?.trim() ?? '';
  return {
    patientId: await text('patient-id'),
    stored: Number(await text('stored')),
    storedWithLoss: Number(await text('stored-with-loss')),
    failed: Number(await text('failed')),
    failureReasons: await page.locator('#failure-list li').allTextContents(),
    lossReasons: await page.locator('#loss-list li').allTextContents(),
  };
}
