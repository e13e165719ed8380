/**
 * The portal for any hospital, in headless Chromium: no hospital configured, the two fixture
 * hospitals of `SMART_FIXTURE=1` (R4 strict about categories and statuses, R5) in the brands
 * directory. The patient searches "Where do you get care?" (case and accents aside), chooses each
 * hospital with the keyboard, and the whole record of each lands under a FHIR Source naming the
 * server actually authorised against, with the per-kind counts of what that hospital serves.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../local/runtime';
import { listFhirSourcesOfPatient } from '../../shared/directory/fhir-sources';
import { getPatient } from '../../shared/directory/patients';
import { IMPORT_AGAIN_NOTE } from '../../shared/portal/report';
import { makePractitioner } from '../support/directory';
import { axe, counts, expectedKinds, FLOW_TIMEOUT, noHorizontalScroll, invitedPatient, phonePage, portalSuite, runPortal, sourceRows } from '../support/portal';

const RESULTS = join(REPO_ROOT, 'test-results');
const suite = portalSuite({ picker: true, count: 10, pageSize: 4 });


const choices = (page: Page) => page.locator('#hospital-list button.choice').allTextContents();

describe('the hospital picker', () => {
  it('asks where the patient gets care and searches as they type, case and accents aside', async () => {
    const { link } = await invitedPatient(suite.world.fixtures);
    const { page, errors } = await phonePage(suite.browser);
    await page.goto(link);
    await page.waitForSelector('body[data-state=picking]');
    expect(await page.textContent('#picker h2')).toBe('Where do you get care?');
    // The search box has the focus: the patient can type at once.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('hospital-search');
    const search = page.getByLabel('Hospital, clinic or city');

    await search.fill('nowhere at all');
    await page.waitForFunction(() => document.getElementById('picker-count')?.textContent?.startsWith('No hospital'));
    expect(await choices(page)).toEqual([]);

    await search.fill('SAO PAULO');
    await page.waitForFunction(() => document.querySelectorAll('#hospital-list button.choice').length === 1);
    expect(await choices(page)).toEqual(['Clínica Comunitária São PauloFixture Community ClinicAvenida Paulista 1000, São Paulo, SP 01310-100']);
    expect(await page.textContent('#picker-count')).toBe('1 found. Choose yours from the list below.');

    await search.fill('fixture');
    await page.waitForFunction(() => document.querySelectorAll('#hospital-list button.choice').length === 5);
    // Names that start with the word first (shorter names first), then the facility found through its brand.
    expect((await page.locator('#hospital-list .facility').allTextContents())).toEqual([
      'Fixture Community Clinic',
      'Fixture General Hospital',
      'Fixture Children’s Hospital',
      'Fixture General North Clinic',
      'Clínica Comunitária São Paulo',
    ]);
    // The arrow keys move through the choices, Escape goes back to the search box.
    await search.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe((await choices(page))[1]);
    await page.keyboard.press('Escape');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('hospital-search');

    expect(await noHorizontalScroll(page)).toBe(true);
    expect(await axe(page)).toEqual([]);
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, 'portal-picker.png'), fullPage: true });
    expect(errors).toEqual([]);
  }, FLOW_TIMEOUT);

  for (const [at, words, facility] of [
    [0, 'springfield north', 'Fixture General North Clinic'],
    [1, 'comunitaria', 'Clínica Comunitária São Paulo'],
  ] as const) {
    it(`pulls the whole record from the hospital chosen (${facility}), under a source naming its server`, async () => {
      const fixture = suite.world.fixtures[at]!;
      const { patient, link } = await invitedPatient(suite.world.fixtures);
      const { page, errors } = await phonePage(suite.browser);
      expect(await runPortal(page, link, fixture, 'Allow', { words, facility })).toBe('done');

      const shown = await counts(page);
      const expected = expectedKinds(fixture);
      expect(shown.kinds).toMatchObject(expected);
      expect(shown).toMatchObject({ stored: fixture.records.length - 1, storedWithLoss: fixture.mode === 'R4' ? 1 : 0, failed: 1 });
      const brand = fixture.mode === 'R4' ? 'Fixture General Hospital' : 'Fixture Community Clinic';
      expect(shown.hospital).toBe(brand);
      expect(shown.summary).toMatch(new RegExp(`^Saved ${fixture.records.length - 1} of ${fixture.records.length} records from ${brand}\\.`));
      expect(await page.getAttribute('body', 'data-fhir-version')).toBe(fixture.mode === 'R4' ? '4.0.1' : '5.0.0');

      // Provenance: the server actually authorised against names the identifier and the source.
      expect(await page.getAttribute('body', 'data-iss')).toBe(fixture.iss);
      expect(await page.textContent('#hospital-server')).toBe(fixture.iss);
      const after = (await getPatient(patient.id))!;
      expect(after.identifiers).toContainEqual({ system: fixture.iss, value: fixture.patientId });
      const [source] = await listFhirSourcesOfPatient(patient.id);
      expect(source!.fhirBaseUrl).toBe(fixture.iss);

      // One copy of the Observation filed under both categories; every kind's rows under the source.
      const doctor = await makePractitioner({ organizations: after.organizationIds.map((id) => ({ id })) });
      const observations = await sourceRows(suite.world, source!.id, doctor.token);
      expect(observations).toHaveLength(expected.laboratory!.stored + expected['vital-signs']!.stored);
      expect(observations.filter((r) => r.code.coding[0].code === '2708-6')).toHaveLength(1);
      expect(await sourceRows(suite.world, source!.id, doctor.token, 'MedicationRequest')).toHaveLength(expected.MedicationRequest!.stored);

      // Before "Import again": the sentence that it adds a second copy.
      expect(await page.textContent('#again-note')).toBe(IMPORT_AGAIN_NOTE);
      expect(await page.locator('#again-note').isVisible()).toBe(true);
      expect(await noHorizontalScroll(page)).toBe(true);
      expect(await axe(page)).toEqual([]);
      await page.screenshot({ path: join(RESULTS, `portal-picker-done-${fixture.mode.toLowerCase()}.png`), fullPage: true });
      expect(errors).toEqual([]);
    }, FLOW_TIMEOUT);
  }

  it('wraps a long hospital id between its parts at 390 px, without horizontal scrolling', async () => {
    const fixture = suite.world.fixtures[1]!;
    const { link } = await invitedPatient(suite.world.fixtures);
    for (const f of suite.world.fixtures) f.patientId = `patient-record-${Date.now()}-${'0123456789abcdef'.repeat(4)}`;
    const { page } = await phonePage(suite.browser);
    expect(await runPortal(page, link, fixture, 'Allow', { words: 'portland', facility: 'Fixture Community Clinic' })).toBe('done');
    expect(await noHorizontalScroll(page)).toBe(true);
    const box = await page.locator('#patient-id').boundingBox();
    expect(box!.width).toBeLessThanOrEqual(390);
    expect(box!.height).toBeGreaterThan(20); // on more than one line
  }, FLOW_TIMEOUT);
});

describe('the picker with nothing in the directory', () => {
  it('is the "not set up" problem, not an empty search', async () => {
    const { removeBrandList } = await import('../../shared/brands/import');
    expect(await removeBrandList('sample')).toBe(true);
    const { link } = await invitedPatient(suite.world.fixtures);
    const { page } = await phonePage(suite.browser);
    await page.goto(link);
    await page.waitForSelector('body[data-state=problem]');
    expect(await page.getAttribute('body', 'data-problem')).toBe('not-configured');
    expect(await page.locator('#picker').isVisible()).toBe(false);
  }, FLOW_TIMEOUT);
});
