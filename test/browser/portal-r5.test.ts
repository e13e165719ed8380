/**
 * The patient portal in headless Chromium against an R5 SMART server (the fixture): the whole
 * flow from the invitation link to the stored rows, re-running, a restart that stores nothing
 * twice, and every problem a patient can act on.
 */
import { describe, expect, it } from 'vitest';
import { listFhirSourcesOfPatient } from '../../shared/directory/fhir-sources';
import { getPatient } from '../../shared/directory/patients';
import { sourceUriPrefix } from '../../shared/fhir/constants';
import { LONG_ID } from '../fixtures/smart-server';
import { makePractitioner } from '../support/directory';
import { counts, FLOW_TIMEOUT, inviteAgain, invitedPatient, phonePage, portalSuite, runPortal, sourceRows } from '../support/portal';

const COUNT = 12;
const suite = portalSuite({ mode: 'R5', count: COUNT, pageSize: 5 });

describe('patient portal, R5 hospital', () => {
  it('pulls the lab results, stores them under a new FHIR Source, and adds rows on a re-run', async () => {
    const { patient, link } = await invitedPatient(suite.world.fixture);
    const { page, errors } = await phonePage(suite.browser);
    expect(await runPortal(page, link, suite.world.fixture)).toBe('done');
    const shown = await counts(page);
    expect(shown).toMatchObject({ patientId: suite.world.fixture.patientId, stored: COUNT - 1, storedWithLoss: 0, failed: 1 });
    expect(shown.failureReasons).toEqual(['The value of "status" is not one FHIR R5 allows (1 record)']);
    // No token and no code left in the address bar or in sessionStorage.
    expect(page.url()).toBe(`${suite.world.gateway.url}/clients/portal/callback`);
    const stored = await page.evaluate(() => Object.keys(sessionStorage));
    expect(stored).toEqual(['cdx.portal.invitation']);
    expect(errors).toEqual([]);

    // The identifier (spec 2.7) and the source (spec 2.5).
    const after = (await getPatient(patient.id))!;
    expect(after.identifiers).toContainEqual({ system: suite.world.fixture.iss, value: suite.world.fixture.patientId });
    const sources = await listFhirSourcesOfPatient(patient.id);
    expect(sources).toHaveLength(1);
    expect(sources[0]!.fhirBaseUrl).toBe(suite.world.fixture.iss);

    // The rows, read through the FHIR API with the right _source; the long id became an identifier.
    const doctor = await makePractitioner({ organizations: after.organizationIds.map((id) => ({ id })) });
    const rows = await sourceRows(suite.world, sources[0]!.id, doctor.token);
    expect(rows).toHaveLength(COUNT - 1);
    for (const row of rows) expect(row.meta.source).toBe(`${sourceUriPrefix()}${sources[0]!.id}`);
    const long = rows.find((r) => r.identifier?.some((i: any) => i.value === LONG_ID));
    expect(long?.identifier).toContainEqual({ system: suite.world.fixture.iss, value: LONG_ID });
    expect(rows.some((r) => r.status === 'bogus')).toBe(false);
    expect(rows.map((r) => r.code.coding[0].code)).not.toContain('8867-4'); // vital signs are not labs

    // A second run: a new source, new rows.
    const { page: again } = await phonePage(suite.browser);
    expect(await runPortal(again, await inviteAgain(after), suite.world.fixture)).toBe('done');
    expect((await counts(again)).stored).toBe(COUNT - 1);
    const twice = await listFhirSourcesOfPatient(patient.id);
    expect(twice).toHaveLength(2);
    expect(await sourceRows(suite.world, twice[0]!.id, doctor.token)).toHaveLength(COUNT - 1);
  }, FLOW_TIMEOUT);
});
