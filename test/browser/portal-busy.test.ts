/**
 * A busy service in the middle of a pull, in headless Chromium: the import answers some entries
 * `503` with a `Retry-After` on its batch-response (the entries a deadline left unprocessed), and
 * the portal sends exactly those again, alone, until they are saved; re-sending an entry that did
 * land stores nothing twice. A Bundle answered `503` as a whole is sent again too.
 */
import { describe, expect, it } from 'vitest';
import { listFhirSourcesOfPatient } from '../../shared/directory/fhir-sources';
import { getPatient } from '../../shared/directory/patients';
import { makePractitioner } from '../support/directory';
import { counts, expectedKinds, FLOW_TIMEOUT, invitedPatient, phonePage, portalSuite, runPortal, sourceRows } from '../support/portal';

const suite = portalSuite({ mode: 'R4', count: 6, pageSize: 10 });

describe('a busy service', () => {
  it('gets the entries it answered 503 sent again, alone, after its Retry-After; each record stored once', async () => {
    const { patient, link } = await invitedPatient(suite.world.fixture);
    const { page } = await phonePage(suite.browser);
    const sent: number[] = [];
    await page.route('**/fhir-import/R4', async (route) => {
      const bundle = JSON.parse(route.request().postData() ?? '{}');
      sent.push(bundle.entry.length);
      const response = await route.fetch();
      if (sent.length > 1) return route.fulfill({ response });
      // The first answer: the first three entries "not processed in time" (they were, in fact: a re-send must not add them twice).
      const body = await response.json();
      for (const entry of body.entry.slice(0, 3)) entry.response = { status: '503 Service Unavailable', outcome: { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'transient', diagnostics: 'Not processed in time.' }] } };
      return route.fulfill({ response, json: body, headers: { ...response.headers(), 'retry-after': '1' } });
    });
    expect(await runPortal(page, link, suite.world.fixture)).toBe('done');
    const total = suite.world.fixture.records.length;
    expect(sent).toEqual([total, 3]);
    expect(await counts(page)).toMatchObject({ stored: total - 1, failed: 1, kinds: expectedKinds(suite.world.fixture) });
    const [source] = await listFhirSourcesOfPatient(patient.id);
    const doctor = await makePractitioner({ organizations: (await getPatient(patient.id))!.organizationIds.map((id) => ({ id })) });
    const expected = expectedKinds(suite.world.fixture);
    expect(await sourceRows(suite.world, source!.id, doctor.token)).toHaveLength(expected.laboratory!.stored + expected['vital-signs']!.stored);
  }, FLOW_TIMEOUT);

  it('sends a whole Bundle again when none of it was started (a 503 answer with Retry-After)', async () => {
    const { link } = await invitedPatient(suite.world.fixture);
    const { page } = await phonePage(suite.browser);
    let calls = 0;
    await page.route('**/fhir-import/R4', async (route) => {
      calls += 1;
      if (calls === 1) {
        return route.fulfill({ status: 503, headers: { 'retry-after': '1', 'content-type': 'application/fhir+json' }, json: { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'timeout', diagnostics: 'None of the entries was processed.' }] } });
      }
      return route.fulfill({ response: await route.fetch() });
    });
    expect(await runPortal(page, link, suite.world.fixture)).toBe('done');
    expect(calls).toBe(2);
    expect(await counts(page)).toMatchObject({ stored: suite.world.fixture.records.length - 1, failed: 1 });
  }, FLOW_TIMEOUT);

  it('counts as not saved, with the reason, what stays busy after five more tries', async () => {
    const { link } = await invitedPatient(suite.world.fixture);
    const { page } = await phonePage(suite.browser);
    let calls = 0;
    await page.route('**/fhir-import/R4', async (route) => {
      calls += 1;
      const response = await route.fetch();
      const body = await response.json();
      // The Condition stays busy every time (the first entry of every Bundle that still carries it).
      const bundle = JSON.parse(route.request().postData() ?? '{}');
      bundle.entry.forEach((e: { resource: { id: string } }, i: number) => {
        if (e.resource.id === 'cond-1') body.entry[i].response = { status: '503 Service Unavailable' };
      });
      return route.fulfill({ response, json: body, headers: { ...response.headers(), 'retry-after': '0' } });
    });
    expect(await runPortal(page, link, suite.world.fixture)).toBe('done');
    expect(calls).toBe(6);
    const shown = await counts(page);
    expect(shown.kinds.Condition).toMatchObject({ stored: 2, failed: 1, failureReasons: ['The study service was too busy to save it (1 record)'] });
  }, FLOW_TIMEOUT);
});
