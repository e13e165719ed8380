/**
 * The patient portal in headless Chromium against one configured R4 SMART server (the fixture, as
 * strict as `SMART_FIXTURE=1`'s: Observation searches must name a category, MedicationRequest
 * searches a status): the whole record goes through the R4 import, whose loss warnings reach the
 * page kind by kind. Also the pages themselves: a phone viewport without horizontal scrolling,
 * axe-core's checks, the security headers, and a screenshot of the finished callback page
 * (test-results/, not committed).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../local/runtime';
import { listFhirSourcesOfPatient } from '../../shared/directory/fhir-sources';
import { getPatient } from '../../shared/directory/patients';
import { sourceUriPrefix } from '../../shared/fhir/constants';
import { DEFAULT_SMART_SCOPES } from '../../shared/portal/config';
import { FIXTURE_HOSPITALS } from '../../local/smart-fixture';
import { LONG_ID } from '../fixtures/smart-server';
import { makePractitioner } from '../support/directory';
import { axe, counts, expectedKinds, FLOW_TIMEOUT, noHorizontalScroll, inviteAgain, invitedPatient, phonePage, portalSuite, runPortal, sourceRows } from '../support/portal';

const COUNT = 14;
const RESULTS = join(REPO_ROOT, 'test-results');
const suite = portalSuite({ ...FIXTURE_HOSPITALS.R4, count: COUNT, pageSize: 4 });



describe('patient portal, R4 hospital', () => {
  it('imports the whole record through the R4 import, narrowing the searches the hospital refuses, reports each kind, and re-runs', async () => {
    const { patient, link } = await invitedPatient(suite.world.fixture);
    const { page, errors } = await phonePage(suite.browser);
    const imports: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/fhir-import/R4')) imports.push(r.method());
    });
    expect(await runPortal(page, link, suite.world.fixture)).toBe('done');
    expect(await page.getAttribute('body', 'data-fhir-version')).toBe('4.0.1');
    const shown = await counts(page);
    const expected = expectedKinds(suite.world.fixture);
    expect(shown.kinds).toMatchObject(expected);
    // The records of both categories count once, under laboratory results; MedicationRequest came through the status-narrowed search.
    expect(expected.laboratory).toMatchObject({ stored: COUNT, storedWithLoss: 1, failed: 1 });
    expect(expected.MedicationRequest!.stored).toBe(2);
    const total = suite.world.fixture.records.length;
    expect(shown).toMatchObject({ patientId: suite.world.fixture.patientId, stored: total - 1, storedWithLoss: 1, failed: 1 });
    expect(shown.summary).toBe(`Saved ${total - 1} of ${total} records from your hospital. 1 of the saved records has some details left out. 1 record could not be saved.`);
    expect(shown.kinds.laboratory!.sentence).toBe(`${COUNT} of ${COUNT + 1} records saved (1 of them with some details left out). 1 could not be saved.`);
    expect(shown.kinds.laboratory!.lossReasons).toEqual(['Extra details attached to "issued" have no place in FHIR R5 and were left out (1 record)']);
    expect(shown.kinds.laboratory!.failureReasons).toEqual(['The value of "status" is not one FHIR R5 allows (1 record)']);
    expect(shown.kinds.Condition!.sentence).toBe('3 of 3 records saved.');
    expect(imports).toEqual(['POST']); // fewer than 100 records: one Bundle

    // Phone layout, accessibility, and the finished page on disk.
    expect(await noHorizontalScroll(page)).toBe(true);
    expect(await axe(page)).toEqual([]);
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, 'portal-callback-r4.png'), fullPage: true });
    expect(errors).toEqual([]);

    const after = (await getPatient(patient.id))!;
    expect(after.identifiers).toContainEqual({ system: suite.world.fixture.iss, value: suite.world.fixture.patientId });
    const [source] = await listFhirSourcesOfPatient(patient.id);
    const doctor = await makePractitioner({ organizations: after.organizationIds.map((id) => ({ id })) });
    const rows = await sourceRows(suite.world, source!.id, doctor.token);
    expect(rows).toHaveLength(expected.laboratory!.stored + expected['vital-signs']!.stored);
    expect(await sourceRows(suite.world, source!.id, doctor.token, 'Condition')).toHaveLength(3);
    for (const row of rows) expect(row.meta.source).toBe(`${sourceUriPrefix()}${source!.id}`);
    expect(rows.find((r) => r.identifier?.some((i: any) => i.value === LONG_ID))?.identifier).toContainEqual({ system: suite.world.fixture.iss, value: LONG_ID });
    expect(rows.some((r) => '_issued' in r)).toBe(false);

    const { page: again } = await phonePage(suite.browser);
    expect(await runPortal(again, await inviteAgain(after), suite.world.fixture)).toBe('done');
    const sources = await listFhirSourcesOfPatient(patient.id);
    expect(sources).toHaveLength(2);
    expect(await sourceRows(suite.world, sources[0]!.id, doctor.token)).toHaveLength(rows.length);
  }, FLOW_TIMEOUT);

  it('serves the pages with a strict Content-Security-Policy and the usual headers', async () => {
    for (const path of ['/clients/portal/?code=x', '/clients/portal/callback', '/clients/portal/portal.js', '/clients/portal/config.json']) {
      const res = await fetch(`${suite.world.gateway.url}${path}`);
      expect(res.status).toBe(200);
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain(`connect-src 'self' ${suite.world.fixture.origin}`);
      expect(csp).not.toContain('unsafe-inline');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('strict-transport-security')).toContain('max-age=');
    }
    const config = await (await fetch(`${suite.world.gateway.url}/clients/portal/config.json`)).json();
    expect(config).toEqual({ iss: suite.world.fixture.iss, clientId: suite.world.fixture.clientId, scope: DEFAULT_SMART_SCOPES, clientIds: [], origins: [] });
  }, FLOW_TIMEOUT);

  it('lays out the connect page and its problems on a phone, accessibly', async () => {
    const { page, errors } = await phonePage(suite.browser);
    await page.goto(`${suite.world.gateway.url}/clients/portal/`);
    await page.waitForSelector('body[data-state=problem]');
    expect(await noHorizontalScroll(page)).toBe(true);
    expect(await axe(page)).toEqual([]);
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, 'portal-connect-no-code.png'), fullPage: true });
    expect(errors).toEqual([]);
  }, FLOW_TIMEOUT);
});
