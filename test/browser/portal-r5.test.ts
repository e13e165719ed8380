/**
 * The patient portal in headless Chromium against one configured R5 SMART server (the fixture,
 * here without care teams): the whole flow from the invitation link to the stored rows, written one
 * by one through `POST /FHIR/R5/<Type>`, a type the hospital does not offer reported as such, and
 * re-running.
 */
import { describe, expect, it } from 'vitest';
import { listFhirSourcesOfPatient } from '../../shared/directory/fhir-sources';
import { getPatient } from '../../shared/directory/patients';
import { sourceUriPrefix } from '../../shared/fhir/constants';
import { BOTH_CATEGORIES_ID, LONG_ID } from '../fixtures/smart-server';
import { makePractitioner } from '../support/directory';
import { counts, expectedKinds, FLOW_TIMEOUT, inviteAgain, invitedPatient, phonePage, portalSuite, runPortal, sourceRows } from '../support/portal';

const COUNT = 12;
const suite = portalSuite({ mode: 'R5', count: COUNT, pageSize: 5, withheld: ['CareTeam'] });

describe('patient portal, R5 hospital', () => {
  it('pulls the whole record, stores it under a new FHIR Source, says which type is not offered, and adds rows on a re-run', async () => {
    const { patient, link } = await invitedPatient(suite.world.fixture);
    const { page, errors } = await phonePage(suite.browser);
    const writes = new Set<string>();
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().includes('/FHIR/R5/')) writes.add(new URL(r.url()).pathname);
    });
    expect(await runPortal(page, link, suite.world.fixture)).toBe('done');
    const shown = await counts(page);
    const expected = expectedKinds(suite.world.fixture);
    expect(shown.kinds).toMatchObject(expected);
    expect(shown.kinds.CareTeam).toMatchObject({ outcome: 'not-offered', sentence: 'Your hospital does not offer these records.' });
    const total = suite.world.fixture.records.filter((r) => r.resourceType !== 'CareTeam').length;
    expect(shown).toMatchObject({ patientId: suite.world.fixture.patientId, stored: total - 1, storedWithLoss: 0, failed: 1 });
    expect(shown.kinds.laboratory!.failureReasons).toEqual(['The value of "status" is not one FHIR R5 allows (1 record)']);
    expect([...writes].sort()).toEqual([...new Set(suite.world.fixture.records.filter((r) => r.resourceType !== 'CareTeam').map((r) => `/FHIR/R5/${r.resourceType}`))].sort());
    // No token and no code left in the address bar or in sessionStorage.
    expect(page.url()).toBe(`${suite.world.gateway.url}/clients/portal/callback`);
    const stored = await page.evaluate(() => Object.keys(sessionStorage));
    expect(stored).toEqual(['cdx.portal.invitation']);
    expect(errors).toEqual([]);

    // The patient's identifier and the FHIR Source.
    const after = (await getPatient(patient.id))!;
    expect(after.identifiers).toContainEqual({ system: suite.world.fixture.iss, value: suite.world.fixture.patientId });
    const sources = await listFhirSourcesOfPatient(patient.id);
    expect(sources).toHaveLength(1);
    expect(sources[0]!.fhirBaseUrl).toBe(suite.world.fixture.iss);

    // The rows, read through the FHIR API with the right _source; the long id became an identifier.
    const doctor = await makePractitioner({ organizations: after.organizationIds.map((id) => ({ id })) });
    const rows = await sourceRows(suite.world, sources[0]!.id, doctor.token);
    expect(rows).toHaveLength(expected.laboratory!.stored + expected['vital-signs']!.stored);
    // The Observation filed under both categories is stored once.
    expect(rows.filter((r) => r.code.coding[0].code === '2708-6')).toHaveLength(1);
    expect(suite.world.fixture.records.some((r) => r.id === BOTH_CATEGORIES_ID)).toBe(true);
    for (const row of rows) expect(row.meta.source).toBe(`${sourceUriPrefix()}${sources[0]!.id}`);
    const long = rows.find((r) => r.identifier?.some((i: any) => i.value === LONG_ID));
    expect(long?.identifier).toContainEqual({ system: suite.world.fixture.iss, value: LONG_ID });
    expect(rows.some((r) => r.status === 'bogus')).toBe(false);

    // A second run: a new source, new rows.
    const { page: again } = await phonePage(suite.browser);
    expect(await runPortal(again, await inviteAgain(after), suite.world.fixture)).toBe('done');
    expect((await counts(again)).stored).toBe(total - 1);
    const twice = await listFhirSourcesOfPatient(patient.id);
    expect(twice).toHaveLength(2);
    expect(await sourceRows(suite.world, twice[0]!.id, doctor.token)).toHaveLength(rows.length);
  }, FLOW_TIMEOUT);
});
