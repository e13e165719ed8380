/**
 * The patient portal in headless Chromium against an R5 SMART server (the fixture): the whole
 * flow from the invitation link to the stored rows, re-running, a restart that stores nothing
 * twice, and every problem a patient can act on.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFhirSourcesOfPatient } from '../../shared/directory/fhir-sources';
import { getPatient } from '../../shared/directory/patients';
import { SOURCE_URI_PREFIX } from '../../shared/fhir/constants';
import { PROBLEMS } from '../../shared/portal/messages';
import { LONG_ID } from '../fixtures/smart-server';
import { launchBrowser } from '../support/browser';
import { makePractitioner } from '../support/directory';
import { counts, invitedPatient, inviteAgain, phonePage, runPortal, startPortalWorld, type PortalWorld } from '../support/portal';

/** A whole flow in Chromium takes seconds; on 2 cores shared with the rest of the suite, more. */
const FLOW_TIMEOUT = 120_000;

const COUNT = 12;
let world: PortalWorld;
let browser: Browser;

beforeAll(async () => {
  [world, browser] = await Promise.all([startPortalWorld({ mode: 'R5', count: COUNT, pageSize: 5 }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await world?.close();
});

/** Rows of one FHIR Source, read back through the FHIR API by a practitioner of the patient. */
async function rowsOf(sourceId: number, organizationToken: string): Promise<Array<Record<string, any>>> {
  const rows: Array<Record<string, any>> = [];
  let next: string | undefined = `${world.gateway.url}/FHIR/R5/Observation?_source=${encodeURIComponent(`${SOURCE_URI_PREFIX}${sourceId}`)}&_count=100`;
  while (next) {
    const res = await fetch(next, { headers: { authorization: `Bearer ${organizationToken}` } });
    expect(res.status).toBe(200);
    const bundle: any = await res.json();
    rows.push(...(bundle.entry ?? []).filter((e: any) => e.search?.mode !== 'outcome').map((e: any) => e.resource));
    next = bundle.link?.find((l: any) => l.relation === 'next')?.url;
  }
  return rows;
}

describe('patient portal, R5 hospital', () => {
  it('pulls the lab results, stores them under a new FHIR Source, and adds rows on a re-run', async () => {
    const { patient, link } = await invitedPatient(world.fixture);
    const { page, errors } = await phonePage(browser);
    expect(await runPortal(page, link, world.fixture)).toBe('done');
    const shown = await counts(page);
    expect(shown).toMatchObject({ patientId: world.fixture.patientId, stored: COUNT - 1, storedWithLoss: 0, failed: 1 });
    expect(shown.failureReasons).toEqual(['The value of "status" is not one FHIR R5 allows (1 record)']);
    // No token and no code left in the address bar or in sessionStorage.
    expect(page.url()).toBe(`${world.gateway.url}/clients/portal/callback`);
    const stored = await page.evaluate(() => Object.keys(sessionStorage));
    expect(stored).toEqual(['cdx.portal.invitation']);
    expect(errors).toEqual([]);

    // The identifier (spec 2.7) and the source (spec 2.5).
    const after = (await getPatient(patient.id))!;
    expect(after.identifiers).toContainEqual({ system: world.fixture.iss, value: world.fixture.patientId });
    const sources = await listFhirSourcesOfPatient(patient.id);
    expect(sources).toHaveLength(1);
    expect(sources[0]!.fhirBaseUrl).toBe(world.fixture.iss);

    // The rows, read through the FHIR API with the right _source; the long id became an identifier.
    const doctor = await makePractitioner({ organizations: after.organizationIds.map((id) => ({ id })) });
    const rows = await rowsOf(sources[0]!.id, doctor.token);
    expect(rows).toHaveLength(COUNT - 1);
    for (const row of rows) expect(row.meta.source).toBe(`${SOURCE_URI_PREFIX}${sources[0]!.id}`);
    const long = rows.find((r) => r.identifier?.some((i: any) => i.value === LONG_ID));
    expect(long?.identifier).toContainEqual({ system: world.fixture.iss, value: LONG_ID });
    expect(rows.some((r) => r.status === 'bogus')).toBe(false);
    expect(rows.map((r) => r.code.coding[0].code)).not.toContain('8867-4'); // vital signs are not labs

    // A second run: a new source, new rows.
    const { page: again } = await phonePage(browser);
    expect(await runPortal(again, await inviteAgain(after), world.fixture)).toBe('done');
    expect((await counts(again)).stored).toBe(COUNT - 1);
    const twice = await listFhirSourcesOfPatient(patient.id);
    expect(twice).toHaveLength(2);
    expect(await rowsOf(twice[0]!.id, doctor.token)).toHaveLength(COUNT - 1);
  }, FLOW_TIMEOUT);
});
