/**
 * The glucose page's world for browser tests: a patient with a glucose sensor whose last 14 days of
 * readings went through the service's upload API, an invitation to open the page with, and the
 * steps of "Send to my hospital" in the browser.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { Patient } from '../../shared/directory/model';
import { PORTAL_GLUCOSE_PATH } from '../../shared/portal/config';
import type { SmartFixture } from '../fixtures/smart-server';
import { DAY, glucoseMembers, MINUTE } from './cgm';
import { makeDataSource, makeOrganization, makePatient, makeStudy } from './directory';
import { observation, statusesOf, upload } from './observations';
import { answerHospital, inviteAgain, pickHospital, type PortalWorld } from './portal';

const GLUCOSE = 'omh:blood-glucose:4.0';
/** Readings an upload carries here. */
const BATCH = 500;
/** A sensor reading every 15 minutes: 1,344 readings in 14 days, every AGP bin 14 of them. */
export const EVERY_MINUTES = 15;

/** Hours of the day (UTC) after meals, when the trace is high. */
const HIGH_HOURS = new Set([8, 9, 13, 14, 19, 20, 21]);

/**
 * The value of the i-th reading: 80-120 mg/dL, 230 for seven hours of each day (29% above 180: time
 * in range and above 180 miss their targets, and so does CV), 62 for one reading in five between
 * 02:00 and 04:00 (1.7% below 70: that target is met).
 */
export function sensorValue(at: number, i: number): number {
  const hour = new Date(at).getUTCHours();
  if (HIGH_HOURS.has(hour)) return 230;
  if (hour >= 2 && hour < 4 && i % 5 === 0) return 62;
  return 100 + ((i * 37) % 41) - 20;
}

let hospitalPatients = 0;

/**
 * A patient of a fresh organization with a login, enrolled with consent in a study of a glucose
 * sensor; with `readings`, the sensor's last 14 days (every 15 minutes up to now) uploaded through
 * `POST /FHIR/R5/` as a device does. Also an invitation link to the glucose page, and the fixtures'
 * sign-in made this patient's hospital record.
 */
export async function sensorPatient(world: PortalWorld, options: { readings: boolean }): Promise<{ patient: Patient; link: string; code: string; values: number[] }> {
  const organization = await makeOrganization();
  const patient = (await makePatient({ organizations: [organization], login: true })) as Patient & { token: string };
  const device = await makeDataSource({ codes: [GLUCOSE] });
  await makeStudy({ organization, codes: [GLUCOSE], patients: [patient], consent: true, dataSources: [device] });
  const values: number[] = [];
  if (options.readings) {
    const end = Math.floor(Date.now() / (EVERY_MINUTES * MINUTE)) * EVERY_MINUTES * MINUTE;
    const count = (14 * DAY) / (EVERY_MINUTES * MINUTE);
    const resources = Array.from({ length: count }, (_, i) => {
      const at = end - (count - i) * EVERY_MINUTES * MINUTE;
      values.push(sensorValue(at, i));
      return observation({ patient, device }, { code: GLUCOSE, members: glucoseMembers(at, 0, values[i]!, 'mg/dL') });
    });
    for (let i = 0; i < resources.length; i += BATCH) {
      const res = await upload(patient.token, resources.slice(i, i + BATCH));
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      for (const status of statusesOf(res)) expect(status).toBe('201 Created');
    }
  }
  const hospitalPatient = `cgm-pat-${process.pid}-${++hospitalPatients}`;
  for (const f of world.fixtures) f.patientId = hospitalPatient;
  const link = await inviteAgain(patient);
  const code = new URL(link).searchParams.get('code')!;
  return { patient, link, code, values };
}

/** Opens the glucose page with an invitation code; resolves with the state it settles in. */
export async function openGlucosePage(page: Page, world: PortalWorld, code: string): Promise<string> {
  await page.goto(`${world.gateway.url}${PORTAL_GLUCOSE_PATH}?code=${encodeURIComponent(code)}`);
  await page.waitForSelector('body[data-state=report], body[data-state=no-readings], body[data-state=problem]', { timeout: 60_000 });
  return (await page.getAttribute('body', 'data-state'))!;
}

const SEND_STATES = ['sent', 'send-problem', 'problem'];

/**
 * From the shown report: "Send to my hospital" (or the button named `button`), the hospital chosen
 * in the picker, the hospital's consent page answered; resolves with the state the page settles in
 * (`sent`, `send-problem`, `problem`).
 */
export async function sendToHospital(
  page: Page,
  fixture: SmartFixture,
  pick: { words: string; facility: string },
  decision: 'Allow' | 'Deny' = 'Allow',
  button = 'Send to my hospital',
): Promise<string> {
  await page.getByRole('button', { name: button, exact: true }).click();
  await pickHospital(page, pick.words, pick.facility);
  return answerHospital(page, fixture, decision, SEND_STATES);
}

export interface ConnectedShown {
  /** The button's first line (`Send to <hospital>`) and second (its FHIR base URL), as text. */
  name: string;
  server: string;
  fhirBaseUrl: string;
}

/** The connected hospitals the page offers, once it has listed them. */
export async function connectedShown(page: Page): Promise<ConnectedShown[]> {
  await page.waitForSelector('#connected-list button', { timeout: 20_000 });
  const shown: ConnectedShown[] = [];
  for (const button of await page.locator('#connected-list button').all()) {
    shown.push({
      name: (await button.locator('.facility').textContent())!,
      server: (await button.locator('.server').textContent())!,
      fhirBaseUrl: (await button.getAttribute('data-fhir-base-url'))!,
    });
  }
  return shown;
}

/** Sends to the `index`-th connected hospital and answers its consent page; resolves with the state the page settles in. */
export async function sendToConnected(page: Page, fixture: SmartFixture, index: number): Promise<string> {
  await connectedShown(page);
  await page.locator('#connected-list button').nth(index).click();
  return answerHospital(page, fixture, 'Allow', SEND_STATES);
}

export interface SentShown {
  summary: string;
  items: Array<{ type: string; code: string; state: string; reference: string; name: string; what: string; outcome: string }>;
}

/** What the page lists as sent. */
export async function sentShown(page: Page): Promise<SentShown> {
  const items: SentShown['items'] = [];
  for (const item of await page.locator('#sent-list li').all()) {
    const [name, what, outcome] = await item.locator('h3, p').allTextContents();
    items.push({
      type: (await item.getAttribute('data-type'))!,
      code: (await item.getAttribute('data-code'))!,
      state: (await item.getAttribute('data-state'))!,
      reference: (await item.getAttribute('data-reference'))!,
      name: name!,
      what: what!,
      outcome: outcome!,
    });
  }
  return { summary: (await page.textContent('#sent-summary'))!.trim(), items };
}
