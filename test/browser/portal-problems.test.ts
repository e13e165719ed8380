/**
 * Every problem a patient can act on, in headless Chromium: one plain sentence each, and a way to
 * start again; a restart after a failure in the middle of the writes stores nothing twice.
 */
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { listFhirSourcesOfPatient } from '../../shared/directory/fhir-sources';
import { getOAuthClient } from '../../shared/directory/oauth-clients';
import { getPatient } from '../../shared/directory/patients';
import { sourceUriPrefix } from '../../shared/fhir/constants';
import { resetClock, useClock } from '../../shared/oauth/clock';
import { cancelInvitation, issueInvitation } from '../../shared/oauth/invitations';
import { PORTAL_CLIENT_ID } from '../../shared/oauth/service-clients';
import { PROBLEMS, type PortalProblem } from '../../shared/portal/messages';
import { startTestGateway } from '../support/gateway';
import { makeOrganization, makePatient, makePractitioner } from '../support/directory';
import { counts, expectedKinds, FLOW_TIMEOUT, invitedPatient, phonePage, portalSuite, runPortal } from '../support/portal';

const COUNT = 12;
const suite = portalSuite({ mode: 'R5', count: COUNT, pageSize: 5 });
afterEach(() => {
  Object.assign(suite.world.fixture.faults, { searchFails: false, withholdPatientContext: false, expireTokenAfterPages: undefined, unreachable: false });
  suite.world.fixture.onSearchPage = undefined;
  resetClock();
});

async function problemOf(page: Page): Promise<{ problem: string | null; text: string | null; restart: string | null }> {
  await page.waitForSelector('body[data-state=problem]', { timeout: 30_000 });
  const restart = page.locator('#restart');
  return {
    problem: await page.getAttribute('body', 'data-problem'),
    text: await page.textContent('#problem-text'),
    restart: (await restart.isVisible()) ? await restart.getAttribute('href') : null,
  };
}

const expectProblem = async (page: Page, problem: PortalProblem) => {
  const shown = await problemOf(page);
  expect(shown.problem).toBe(problem);
  expect(shown.text).toBe(PROBLEMS[problem]);
  return shown;
};

async function issue() {
  const patient = await makePatient({ organizations: [await makeOrganization()] });
  const client = (await getOAuthClient(PORTAL_CLIENT_ID))!;
  const issued = await issueInvitation({ patient, client, sendEmail: false });
  return { patient, client, ...issued };
}

describe('portal problems: the invitation', () => {
  it('says that the link has no invitation code', async () => {
    const { page, errors } = await phonePage(suite.browser);
    await page.goto(`${suite.world.gateway.url}/clients/portal/`);
    expect(await page.textContent('h1')).toBe('Connect your hospital records');
    expect((await expectProblem(page, 'no-code')).restart).toBeNull();
    expect(errors).toEqual([]);
  }, FLOW_TIMEOUT);

  it('says that a damaged code is damaged, and an unknown one is not valid', async () => {
    const { page } = await phonePage(suite.browser);
    await page.goto(`${suite.world.gateway.url}/clients/portal/?code=nonsense`);
    await expectProblem(page, 'bad-code');
    await page.goto(`${suite.world.gateway.url}/clients/portal/?code=localhost_${'A'.repeat(32)}`);
    await expectProblem(page, 'invitation-unknown');
  }, FLOW_TIMEOUT);

  it('tells an expired, a cancelled and a replaced invitation apart', async () => {
    const expired = await issue();
    useClock(() => Date.now() + 8 * 24 * 3600 * 1000);
    const { page } = await phonePage(suite.browser);
    await page.goto(expired.invitationLink);
    await expectProblem(page, 'invitation-expired');
    resetClock();

    const cancelled = await issue();
    await cancelInvitation(cancelled.invitation.id);
    await page.goto(cancelled.invitationLink);
    await expectProblem(page, 'invitation-cancelled');

    const replaced = await issue();
    await issueInvitation({ patient: replaced.patient, client: replaced.client, sendEmail: false });
    await page.goto(replaced.invitationLink);
    await expectProblem(page, 'invitation-replaced');
  }, FLOW_TIMEOUT);
});

describe('portal problems: the deployment', () => {
  it('says that a portal without a configured hospital is not set up', async () => {
    const bare = await startTestGateway();
    try {
      const { link } = await invitedPatient(suite.world.fixture);
      const { page } = await phonePage(suite.browser);
      await page.goto(link.replace(suite.world.gateway.url, bare.url));
      expect((await expectProblem(page, 'not-configured')).restart).toBeNull();
      expect((await fetch(`${bare.url}/clients/portal/`)).headers.get('content-security-policy')).toContain("connect-src 'self';");
    } finally {
      await bare.close();
    }
  }, FLOW_TIMEOUT);
});

describe('portal problems: the hospital', () => {
  it('reports a denied sign-in and offers to start again', async () => {
    const { link } = await invitedPatient(suite.world.fixture);
    const { page } = await phonePage(suite.browser);
    expect(await runPortal(page, link, suite.world.fixture, 'Deny')).toBe('problem');
    const shown = await expectProblem(page, 'login-denied');
    expect(shown.restart).toBe(`/clients/portal/?code=${encodeURIComponent(new URL(link).searchParams.get('code')!)}`);
    // The error left the address bar, and starting again works.
    expect(page.url()).toBe(`${suite.world.gateway.url}/clients/portal/callback`);
    await page.click('#restart');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForSelector('body[data-state=done]');
    expect((await counts(page)).stored).toBe(suite.world.fixture.records.length - 1);
  }, FLOW_TIMEOUT);

  it('reports a launch without patient context (launch/patient not granted)', async () => {
    suite.world.fixture.faults.withholdPatientContext = true;
    const { patient, link } = await invitedPatient(suite.world.fixture);
    const { page } = await phonePage(suite.browser);
    expect(await runPortal(page, link, suite.world.fixture)).toBe('problem');
    await expectProblem(page, 'no-patient');
    expect(await listFhirSourcesOfPatient(patient.id)).toEqual([]);
  }, FLOW_TIMEOUT);

  it('reports a hospital that answers errors', async () => {
    suite.world.fixture.faults.searchFails = true;
    const { link } = await invitedPatient(suite.world.fixture);
    const { page } = await phonePage(suite.browser);
    expect(await runPortal(page, link, suite.world.fixture)).toBe('problem');
    await expectProblem(page, 'hospital-error');
  }, FLOW_TIMEOUT);

  it('reports a hospital that cannot be reached, before and after the sign-in', async () => {
    suite.world.fixture.faults.unreachable = true;
    const { link } = await invitedPatient(suite.world.fixture);
    const { page } = await phonePage(suite.browser);
    await page.goto(link);
    await expectProblem(page, 'hospital-unreachable');

    suite.world.fixture.faults.unreachable = false;
    const second = await invitedPatient(suite.world.fixture);
    await page.goto(second.link);
    await page.waitForURL((url) => url.href.startsWith(`${suite.world.fixture.origin}/authorize`));
    suite.world.fixture.faults.unreachable = true;
    await page.getByRole('button', { name: 'Allow' }).click();
    await expectProblem(page, 'hospital-unreachable');
  }, FLOW_TIMEOUT);

  it('reports a hospital sign-in that expires during the reads', async () => {
    suite.world.fixture.faults.expireTokenAfterPages = 1;
    const { link } = await invitedPatient(suite.world.fixture);
    const { page } = await phonePage(suite.browser);
    expect(await runPortal(page, link, suite.world.fixture)).toBe('problem');
    await expectProblem(page, 'hospital-session-expired');
  }, FLOW_TIMEOUT);

  it('refuses a callback with a state it did not issue', async () => {
    const { page } = await phonePage(suite.browser);
    await page.goto(`${suite.world.gateway.url}/clients/portal/callback?code=stolen&state=forged`);
    await expectProblem(page, 'no-session');
    expect(page.url()).toBe(`${suite.world.gateway.url}/clients/portal/callback`);
  }, FLOW_TIMEOUT);
});

describe('portal problems: the service session', () => {
  it('reports a service token that expires during the writes; the restart stores nothing twice', async () => {
    const { patient, link } = await invitedPatient(suite.world.fixture);
    const { page } = await phonePage(suite.browser);
    // After four writes went through, the service token is revoked (as if it expired).
    let writes = 0;
    await page.route('**/FHIR/R5/*', async (route) => {
      writes++;
      if (writes === 5) {
        const session = JSON.parse((await page.evaluate(() => sessionStorage.getItem('cdx.portal.session')))!);
        const revoked = await fetch(`${suite.world.gateway.url}/o/revoke_token/`, {
          method: 'POST',
          body: new URLSearchParams({ token: session.accessToken, token_type_hint: 'access_token', client_id: PORTAL_CLIENT_ID }),
        });
        expect(revoked.status).toBe(200);
      }
      await route.continue();
    });
    expect(await runPortal(page, link, suite.world.fixture)).toBe('problem');
    const shown = await expectProblem(page, 'service-session-expired');
    expect(shown.restart).not.toBeNull();
    const sources = await listFhirSourcesOfPatient(patient.id);
    expect(sources).toHaveLength(1);

    await page.unroute('**/FHIR/R5/*');
    await page.click('#restart');
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForSelector('body[data-state=done]');
    expect(await counts(page)).toMatchObject({ stored: suite.world.fixture.records.length - 1, failed: 1 });

    // The restart reused the run's source, and each record is there once.
    expect(await listFhirSourcesOfPatient(patient.id)).toHaveLength(1);
    const doctor = await makePractitioner({ organizations: (await getPatient(patient.id))!.organizationIds.map((id) => ({ id })) });
    const res = await fetch(`${suite.world.gateway.url}/FHIR/R5/Observation?_source=${encodeURIComponent(`${sourceUriPrefix()}${sources[0]!.id}`)}&_count=100&_total=accurate`, {
      headers: { authorization: `Bearer ${doctor.token}` },
    });
    const bundle: any = await res.json();
    const expected = expectedKinds(suite.world.fixture);
    expect(bundle.total).toBe(expected.laboratory!.stored + expected['vital-signs']!.stored);
    expect(new Set(bundle.entry.map((e: any) => JSON.stringify(e.resource.code))).size).toBeGreaterThan(1);
  }, FLOW_TIMEOUT);
});
