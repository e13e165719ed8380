/**
 * The patient portal's world for browser tests and the benchmark: the local gateway configured
 * for a SMART fixture, a patient with an invitation, and the steps a patient takes in the browser.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { REPO_ROOT } from '../../local/runtime';
import { afterAll, beforeAll, expect } from 'vitest';
import { sourceUriPrefix } from '../../shared/fhir/constants';
import { resetConfig } from '../../shared/config';
import { getOAuthClient } from '../../shared/directory/oauth-clients';
import type { Patient } from '../../shared/directory/model';
import { issueInvitation } from '../../shared/oauth/invitations';
import { ensureServiceClients, PORTAL_CLIENT_ID } from '../../shared/oauth/service-clients';
import { portalConfig, PORTAL_CALLBACK_PATH } from '../../shared/portal/config';
import type { Gateway } from '../../local/gateway';
import { BOGUS_ID, DROPPED_ID, startSmartFixture, type SmartFixture, type SmartFixtureOptions } from '../fixtures/smart-server';
import { RECORD_KINDS } from '../../shared/portal/pulls';
import { brandsBundle } from '../fixtures/brands-bundle';
import { FIXTURE_HOSPITALS, sampleBrands } from '../../local/smart-fixture';
import { importBrands } from '../../shared/brands/import';
import { launchBrowser } from './browser';
import { makeDataSource, makeOrganization, makePatient } from './directory';
import { startTestGateway } from './gateway';

export interface PortalWorld {
  gateway: Gateway;
  /** The one hospital (the first of `fixtures`). */
  fixture: SmartFixture;
  fixtures: SmartFixture[];
  close(): Promise<void>;
}

/**
 * The fixture, then the gateway pointed at it (SITE_URL = the gateway), and the service's clients.
 * With `picker`, the fixtures of `local/smart-fixture.ts` (R4 and R5) in the brands directory
 * (the sample `SMART_FIXTURE=1 npm start` loads) and no hospital configured: the picker's world.
 */
export async function startPortalWorld(options: SmartFixtureOptions & { picker?: boolean } = {}): Promise<PortalWorld> {
  const { picker, ...fixtureOptions } = options;
  const fixtures = picker
    ? await Promise.all([startSmartFixture({ ...FIXTURE_HOSPITALS.R4, ...fixtureOptions }), startSmartFixture({ ...FIXTURE_HOSPITALS.R5, ...fixtureOptions })])
    : [await startSmartFixture(fixtureOptions)];
  const fixture = fixtures[0]!;
  const portal = picker
    ? portalConfig({ clientId: fixture.clientId, origins: fixtures.map((f) => f.origin).join(' ') })
    : portalConfig({ iss: fixture.iss, clientId: fixture.clientId });
  const gateway = await startTestGateway({ portal, asSite: true });
  for (const f of fixtures) f.redirectUri = `${gateway.url}${PORTAL_CALLBACK_PATH}`;
  await ensureServiceClients();
  await makeDataSource({ name: 'Patient portal', type: 'patient_app' });
  if (picker) await importBrands('sample', brandsBundle(sampleBrands(fixtures[0]!, fixtures[1]!)));
  return {
    gateway,
    fixture,
    fixtures,
    close: async () => {
      delete process.env.SITE_URL;
      resetConfig();
      await Promise.all(fixtures.map((f) => f.close().catch(() => undefined)));
      await gateway.close();
    },
  };
}

/** A whole flow in Chromium takes seconds; on 2 cores shared with the rest of the suite, more. */
export const FLOW_TIMEOUT = 120_000;

/** Registers a browser suite's hooks: the portal world and a Chromium, both closed after the suite. */
export function portalSuite(options: SmartFixtureOptions & { picker?: boolean }): { world: PortalWorld; browser: Browser } {
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

/** The resources of a type (Observations unless told) stored under one FHIR Source, read back through the FHIR API (every page). */
export async function sourceRows(world: PortalWorld, sourceId: number, token: string, type = 'Observation'): Promise<Array<Record<string, any>>> {
  const rows: Array<Record<string, any>> = [];
  let next: string | undefined = `${world.gateway.url}/FHIR/R5/${type}?_source=${encodeURIComponent(`${sourceUriPrefix()}${sourceId}`)}&_count=100`;
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
export async function invitedPatient(fixture: SmartFixture | readonly SmartFixture[]): Promise<{ patient: Patient; link: string }> {
  const id = `smart-pat-${process.pid}-${++hospitalPatients}`;
  for (const f of [fixture].flat()) f.patientId = id;
  const patient = await makePatient({ organizations: [await makeOrganization()] });
  return { patient, link: await inviteAgain(patient) };
}

export async function inviteAgain(patient: Patient): Promise<string> {
  const client = (await getOAuthClient(PORTAL_CLIENT_ID))!;
  return (await issueInvitation({ patient, client, sendEmail: false })).invitationLink;
}

/** axe-core in the page: the violations of the rules on labels, contrast, headings and the rest of WCAG 2 A/AA and best practice. */
export async function axe(page: Page): Promise<Array<{ id: string; nodes: string[] }>> {
  // The page's CSP refuses inline scripts: evaluate the library's source instead of adding a tag.
  await page.evaluate(readFileSync(join(REPO_ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8'));
  return page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'best-practice'] } });
    return result.violations.map((v: any) => ({ id: v.id, nodes: v.nodes.map((n: any) => n.target.join(' ')) }));
  });
}

/** Whether the page fits the viewport's width (nothing to scroll sideways). */
export const noHorizontalScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

/** A 390-pixel-wide phone. */
export const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

export async function phonePage(browser: Browser): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext(PHONE);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  return { page, errors };
}

/**
 * Chooses a hospital in the picker by typing `words` and pressing the result naming `facility`
 * (with the keyboard: the arrow keys to it, then Enter).
 */
export async function pickHospital(page: Page, words: string, facility: string): Promise<void> {
  await page.waitForSelector('body[data-state=picking]', { timeout: 20_000 });
  await page.getByLabel('Hospital, clinic or city').fill(words);
  const choice = page.locator('#hospital-list button.choice', { hasText: facility }).first();
  await choice.waitFor({ timeout: 20_000 });
  const buttons = await page.locator('#hospital-list button.choice').allTextContents();
  const at = buttons.findIndex((text) => text.includes(facility));
  await page.getByLabel('Hospital, clinic or city').press('ArrowDown');
  for (let i = 0; i < at; i += 1) await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
}

/**
 * Opens the link (choosing `pick.facility` in the picker when the portal asks) and answers the
 * hospital's consent page; resolves when the portal page is done or shows a problem.
 */
export async function runPortal(
  page: Page,
  link: string,
  fixture: SmartFixture,
  decision: 'Allow' | 'Deny' = 'Allow',
  pick?: { words: string; facility: string },
): Promise<'done' | 'problem'> {
  await page.goto(link);
  if (pick) await pickHospital(page, pick.words, pick.facility);
  return (await answerHospital(page, fixture, decision, ['done', 'problem'])) as 'done' | 'problem';
}

/**
 * Answers the hospital's consent page when it comes (unless the portal stops early in one of the
 * `finished` states), then waits for the portal page to reach one of them; resolves with it.
 */
export async function answerHospital(page: Page, fixture: SmartFixture, decision: 'Allow' | 'Deny', finished: readonly string[]): Promise<string> {
  const settled = finished.map((state) => `body[data-state=${state}]`).join(', ');
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (page.url().startsWith(`${fixture.origin}/authorize`)) {
      await page.getByRole('button', { name: decision }).click();
      break;
    }
    if (await page.$(settled).catch(() => null)) break;
    if (Date.now() > deadline) throw new Error(`neither consent nor a result at ${page.url()}`);
    await page.waitForTimeout(50);
  }
  await page.waitForSelector(settled, { timeout: 60_000 }).catch(async (e: unknown) => {
    // Where the page stands, for a failure that says more than "timed out".
    const shown = await page.evaluate(() => `${document.body.dataset.state ?? '-'}: ${document.getElementById('status')?.textContent ?? ''} / ${document.getElementById('progress-label')?.textContent ?? ''}`).catch(() => '?');
    throw new Error(`${String(e)} at ${page.url()} (${shown})`);
  });
  return (await page.getAttribute('body', 'data-state'))!;
}

export interface KindShown {
  outcome: string;
  stored: number;
  storedWithLoss: number;
  failed: number;
  sentence: string;
  failureReasons: string[];
  lossReasons: string[];
}

/** What the finished page shows: the totals, and per kind of record (by its key) its counts, sentence and reasons. */
export async function counts(page: Page) {
  const text = async (id: string) => (await page.textContent(`#${id}`))?.trim() ?? '';
  const number = async (selector: string, name: string) => Number(await page.getAttribute(selector, `data-${name}`));
  const kinds: Record<string, KindShown> = {};
  for (const item of await page.locator('#kinds li.kind').all()) {
    kinds[(await item.getAttribute('data-kind'))!] = {
      outcome: (await item.getAttribute('data-outcome'))!,
      stored: Number(await item.getAttribute('data-stored')),
      storedWithLoss: Number(await item.getAttribute('data-with-loss')),
      failed: Number(await item.getAttribute('data-failed')),
      sentence: (await item.locator('p').first().textContent())!.trim(),
      failureReasons: await item.locator('ul.failure-list li').allTextContents(),
      lossReasons: await item.locator('ul.loss-list li').allTextContents(),
    };
  }
  return {
    patientId: await text('patient-id'),
    hospital: await text('hospital'),
    summary: await text('summary'),
    stored: await number('#result', 'stored'),
    storedWithLoss: await number('#result', 'with-loss'),
    failed: await number('#result', 'failed'),
    kinds,
  };
}

/**
 * What the finished page must show per kind for a fixture: its records of the kind's type (and
 * category), each counted once in the first kind that has it; the invalid status not saved; the R4
 * primitive extension saved with a detail left out. Withheld types are "not offered".
 */
export function expectedKinds(fixture: SmartFixture): Record<string, { outcome: string; stored: number; storedWithLoss: number; failed: number }> {
  const seen = new Set<string>();
  const out: Record<string, { outcome: string; stored: number; storedWithLoss: number; failed: number }> = {};
  for (const kind of RECORD_KINDS) {
    if (!fixture.offered.includes(kind.type)) {
      out[kind.key] = { outcome: 'not-offered', stored: 0, storedWithLoss: 0, failed: 0 };
      continue;
    }
    const category = kind.search?.category;
    const records = fixture.records.filter((r) => r.resourceType === kind.type && (!category || JSON.stringify(r.category).includes(`"code":"${category}"`)) && !seen.has(`${r.resourceType}/${r.id}`));
    for (const r of records) seen.add(`${r.resourceType}/${r.id}`);
    const failed = records.filter((r) => r.id === BOGUS_ID).length;
    out[kind.key] = { outcome: 'read', stored: records.length - failed, storedWithLoss: records.filter((r) => r.id === DROPPED_ID).length, failed };
  }
  return out;
}
