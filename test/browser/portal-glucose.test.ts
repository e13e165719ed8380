/**
 * The glucose page in headless Chromium, with the picker's two fixture hospitals taking writes (the
 * R4 one by transaction, the R5 one in batches): a patient's 14 days of sensor readings uploaded
 * through the service's API shown as the consensus targets, the figures and the AGP, with the PDF to
 * download; a patient without readings sees one sentence. "Send to my hospital" sends the CGM guide's
 * submission to each hospital (R4 converted, R5 as is; one POST each when the hospital offers no
 * Bundle), the hospital receives it about its own patient and the page lists what was sent; refusals
 * (no permission, the hospital's own reasons, the patient saying no) are plain sentences; a hospital
 * that knows only SMART v1 scopes is asked for the v1 write scopes and takes the send. A hospital
 * the patient connected by importing their record is offered as where to send, its name shown as
 * text whatever it holds; another hospital can still be chosen. The unit switch shows the figures
 * and the AGP in mmol/L, remembered in the tab, and the report sent is in the unit shown.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../local/runtime';
import { MEAN_GLUCOSE, SUMMARY_PANEL } from '../../shared/cgm/codes';
import { MGDL_PER_MMOLL } from '../../shared/cgm/units';
import { listFhirSourcesOfPatient } from '../../shared/directory/fhir-sources';
import { NO_READINGS } from '../../shared/portal/cgm-view';
import { PORTAL_GLUCOSE_PATH } from '../../shared/portal/config';
import { SEND_PROBLEMS } from '../../shared/portal/send-report';
import { makeDataSource, makeFhirSource } from '../support/directory';
import { axe, FLOW_TIMEOUT, noHorizontalScroll, phonePage, portalSuite, runPortal } from '../support/portal';
import { connectedShown, openGlucosePage, sendToConnected, sendToHospital, sensorPatient, sentShown } from '../support/portal-glucose';

const RESULTS = join(REPO_ROOT, 'test-results');
const suite = portalSuite({ picker: true, count: 3, pageSize: 10 });
const R4 = { words: 'springfield north', facility: 'Fixture General North Clinic' };
const R5 = { words: 'comunitaria', facility: 'Clínica Comunitária São Paulo' };
const MEMBERS = ['97507-8', '106793-3', '97506-0', '104638-2', '104636-6', '104637-4'];

afterEach(() => {
  for (const f of suite.world.fixtures) {
    Object.assign(f.faults, { withholdWriteScopes: false, refuseWrites: undefined });
    f.smartV1Only = false;
  }
  suite.world.fixtures[1]!.writes.bundles = ['batch'];
});

/** The readings' shares (%) as the consensus counts them, from the values uploaded. */
function expectedShares(values: readonly number[]) {
  const share = (test: (v: number) => boolean) => (100 * values.filter(test).length) / values.length;
  return { timeInRange: share((v) => v >= 70 && v <= 180), timeBelow70: share((v) => v < 70), timeAbove180: share((v) => v > 180) };
}

describe('the glucose page', () => {
  it('shows the targets, the figures and the AGP of the last 14 days, with the PDF; a patient without readings sees a sentence', async () => {
    const { code, values } = await sensorPatient(suite.world, { readings: true });
    const { page, errors } = await phonePage(suite.browser);
    expect(await openGlucosePage(page, suite.world, code)).toBe('report');
    // The invitation code leaves the address bar; it stays in this tab only.
    expect(page.url()).toBe(`${suite.world.gateway.url}${PORTAL_GLUCOSE_PATH}`);

    const targets = await page.locator('#targets li').all();
    expect(targets).toHaveLength(6);
    const shown = new Map<string, { text: string; met: string }>();
    for (const item of targets) shown.set((await item.getAttribute('data-metric'))!, { text: (await item.textContent())!, met: (await item.getAttribute('data-met'))! });
    const expected = expectedShares(values);
    for (const [metric, share] of Object.entries(expected)) {
      const figure = Number(/(\d+\.\d)%/.exec(shown.get(metric)!.text)![1]);
      expect(Math.abs(figure - share), metric).toBeLessThan(0.3);
    }
    expect(shown.get('timeInRange')!.text).toMatch(/^Time in range \(70-180 mg\/dL\)\d+\.\d%Target: more than 70%(Met|Not met)$/);
    // The trace misses the targets of time in range, above 180 and CV, and meets the others.
    expect([...shown].map(([metric, s]) => [metric, s.met])).toEqual([
      ['timeInRange', 'false'],
      ['timeBelow70', 'true'],
      ['timeBelow54', 'true'],
      ['timeAbove180', 'false'],
      ['timeAbove250', 'true'],
      ['cv', 'false'],
    ]);
    expect(await page.locator(`#targets li[data-met=false] .not-met`).count()).toBe([...shown.values()].filter((s) => s.met === 'false').length);
    expect(await page.locator('#figures dt').allTextContents()).toEqual(['Average glucose', 'Glucose management indicator (GMI)', 'Days with sensor readings', 'Time the sensor was active']);
    expect(await page.textContent('#figures [data-figure=daysOfWear] dd')).toBe('14');
    expect(await page.textContent('#sufficiency')).toMatch(/^Enough data for a reliable summary: 14 days, with your sensor active (99\.\d|100\.0)% of the time/);

    // The AGP: both bands and the median drawn, named by its heading and described in words.
    for (const part of ['agp-outer', 'agp-inner', 'agp-median']) expect((await page.getAttribute(`#agp svg .${part}`, 'd'))!.length).toBeGreaterThan(100);
    expect(await page.getAttribute('#agp svg', 'aria-labelledby')).toBe('agp-heading');
    expect(await page.textContent('#agp-description')).toMatch(/^Ambulatory glucose profile: over the time of day, your median glucose ranged from \d+ to \d+ mg\/dL;/);

    // The PDF downloads whole.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#pdf-link')]);
    expect(download.suggestedFilename()).toBe('agp-report.pdf');
    const pdf = readFileSync((await download.path())!);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');

    expect(await noHorizontalScroll(page)).toBe(true);
    expect(await axe(page)).toEqual([]);
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, 'portal-glucose.png'), fullPage: true });
    expect(errors).toEqual([]);

    const none = await sensorPatient(suite.world, { readings: false });
    const { page: empty } = await phonePage(suite.browser);
    expect(await openGlucosePage(empty, suite.world, none.code)).toBe('no-readings');
    expect(await empty.textContent('#no-readings')).toBe(NO_READINGS);
    expect(await empty.locator('#report').isVisible()).toBe(false);
    expect(await empty.locator('#send').isVisible()).toBe(false);
  }, FLOW_TIMEOUT);

  it('is the import page’s next step, and says so when opened without an invitation', async () => {
    const { page } = await phonePage(suite.browser);
    await page.goto(`${suite.world.gateway.url}${PORTAL_GLUCOSE_PATH}`);
    await page.waitForSelector('body[data-state=problem]');
    expect(await page.getAttribute('body', 'data-problem')).toBe('no-session');
  }, FLOW_TIMEOUT);
});

describe('send to my hospital', () => {
  let code: string;
  const patientCode = async () => (code ??= (await sensorPatient(suite.world, { readings: true })).code);

  it('sends the summary to the R4 hospital in one transaction, converted to R4, about its patient, and lists what was sent', async () => {
    const fixture = suite.world.fixtures[0]!;
    const { page, errors } = await phonePage(suite.browser);
    expect(await openGlucosePage(page, suite.world, await patientCode())).toBe('report');
    const before = fixture.created.length;
    expect(await sendToHospital(page, fixture, R4)).toBe('sent');
    // The hospital lists both scope syntaxes: the CGM guide's v2 scopes.
    expect(fixture.scopesAsked.at(-1)).toBe('openid fhirUser launch/patient patient/Observation.cu patient/DiagnosticReport.cu');
    expect(await page.getAttribute('body', 'data-route')).toBe('transaction');
    expect(await page.getAttribute('body', 'data-fhir-version')).toBe('4.0.1');

    const received = fixture.received.at(-1)!;
    expect(received).toMatchObject({ via: 'transaction', status: 200, body: { resourceType: 'Bundle', type: 'transaction', meta: { profile: ['http://hl7.org/fhir/uv/cgm/StructureDefinition/cgm-data-submission-bundle'] } } });
    const created = fixture.created.slice(before);
    expect(created.map((c) => c.resource.resourceType)).toEqual([...Array(7).fill('Observation'), 'DiagnosticReport']);
    const codes = created.map((c) => (c.resource.code as any).coding[0].code);
    expect(codes).toEqual([SUMMARY_PANEL.code, ...MEMBERS, SUMMARY_PANEL.code]);
    for (const c of created) {
      expect(c.resource.subject).toEqual({ reference: `Patient/${fixture.patientId}` });
      expect((c.resource.meta as any)?.versionId).toBe('1');
    }
    expect(((received.body as any).entry as any[]).every((e) => e.resource.meta.profile[0].startsWith('http://hl7.org/fhir/uv/cgm/StructureDefinition/cgm-'))).toBe(true);
    expect((created[0]!.resource.hasMember as any[]).map((m) => m.reference)).toEqual(created.slice(1, 7).map((c) => c.reference));
    const report = created[7]!.resource as any;
    expect(report.result).toEqual([{ reference: created[0]!.reference }]);
    expect(report.presentedForm[0].contentType).toBe('application/pdf');
    expect(Buffer.from(report.presentedForm[0].data, 'base64').subarray(0, 5).toString()).toBe('%PDF-');

    const sent = await sentShown(page);
    expect(sent.summary).toBe('Sent to Fixture General Hospital: all 8 records were saved.');
    expect(sent.items.map((i) => [i.type, i.code, i.state, i.reference])).toEqual(created.map((c) => [c.resource.resourceType, (c.resource.code as any).coding[0].code, 'saved', c.reference]));
    expect(sent.items.map((i) => i.name)).toEqual(['Glucose summary', 'Average glucose', 'Time in ranges', 'Glucose management indicator (GMI)', 'Glucose variability (CV)', 'Days with sensor readings', 'Time the sensor was active', 'AGP report (PDF)']);
    expect(sent.items[0]!.outcome).toBe(`Saved at your hospital (${created[0]!.reference}).`);
    expect(await page.textContent('#sent-patient')).toBe(fixture.patientId);
    // The hospital's token and the kept report are gone; the invitation stays for the next visit.
    expect(await page.evaluate(() => Object.keys(sessionStorage))).toEqual(['cdx.portal.invitation']);
    expect(page.url()).toBe(`${suite.world.gateway.url}${PORTAL_GLUCOSE_PATH}`);
    expect(await noHorizontalScroll(page)).toBe(true);
    expect(await axe(page)).toEqual([]);
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, 'portal-glucose-sent-r4.png'), fullPage: true });
    expect(errors).toEqual([]);
  }, FLOW_TIMEOUT);

  it('sends the summary to the R5 hospital in batches (the members, the summary, the report), and one POST each where it takes no Bundle', async () => {
    const fixture = suite.world.fixtures[1]!;
    for (const bundles of [['batch'], []] as const) {
      fixture.writes.bundles = [...bundles];
      const { page, errors } = await phonePage(suite.browser);
      expect(await openGlucosePage(page, suite.world, await patientCode())).toBe('report');
      const [created, received] = [fixture.created.length, fixture.received.length];
      expect(await sendToHospital(page, fixture, R5)).toBe('sent');
      expect(await page.getAttribute('body', 'data-route')).toBe(bundles.length ? 'batch' : 'each');
      const requests = fixture.received.slice(received);
      expect(requests.map((r) => r.via)).toEqual(bundles.length ? ['batch', 'batch', 'batch'] : Array(8).fill('create'));
      const stored = fixture.created.slice(created);
      expect(stored.map((c) => (c.resource.code as any).coding[0].code)).toEqual([...MEMBERS, SUMMARY_PANEL.code, SUMMARY_PANEL.code]);
      expect(stored.every((c) => (c.resource.subject as any).reference === `Patient/${fixture.patientId}` && !(c.resource.meta as any).profile)).toBe(true);
      expect((stored[6]!.resource.hasMember as any[]).map((m) => m.reference)).toEqual(stored.slice(0, 6).map((c) => c.reference));
      expect(stored[7]!.resource.result).toEqual([{ reference: stored[6]!.reference }]);
      const sent = await sentShown(page);
      expect(sent.summary).toBe('Sent to Fixture Community Clinic: all 8 records were saved.');
      expect(sent.items.every((i) => i.state === 'saved')).toBe(true);
      expect(errors).toEqual([]);
    }
  }, FLOW_TIMEOUT);

  it('asks a hospital that knows only SMART v1 scopes for the v1 write scopes, and the send succeeds', async () => {
    const fixture = suite.world.fixtures[1]!;
    fixture.smartV1Only = true;
    const { page, errors } = await phonePage(suite.browser);
    expect(await openGlucosePage(page, suite.world, await patientCode())).toBe('report');
    const [created, discoveries] = [fixture.created.length, fixture.counts.discoveries];
    expect(await sendToHospital(page, fixture, R5)).toBe('sent');
    expect(fixture.scopesAsked.at(-1)).toBe('openid fhirUser launch/patient patient/Observation.write patient/DiagnosticReport.write');
    // One read of the discovery document: the launch takes it from fhirclient's cache.
    expect(fixture.counts.discoveries - discoveries).toBe(1);
    expect(fixture.created.slice(created).map((c) => c.resource.resourceType)).toEqual([...Array(7).fill('Observation'), 'DiagnosticReport']);
    expect((await sentShown(page)).summary).toBe('Sent to Fixture Community Clinic: all 8 records were saved.');
    expect(errors).toEqual([]);
  }, FLOW_TIMEOUT);

  it('says in plain words that the permission was not given, what the hospital refused and why, and that the patient said no', async () => {
    const [r4, r5] = suite.world.fixtures as [(typeof suite.world.fixtures)[0], (typeof suite.world.fixtures)[0]];
    // The patient unticks the write permissions: the members are refused, the rest not sent.
    r5.faults.withholdWriteScopes = true;
    const { page } = await phonePage(suite.browser);
    expect(await openGlucosePage(page, suite.world, await patientCode())).toBe('report');
    const created = r5.created.length;
    expect(await sendToHospital(page, r5, R5)).toBe('sent');
    let sent = await sentShown(page);
    expect(sent.summary).toBe('Nothing was saved at Fixture Community Clinic. The list below says why.');
    expect(sent.items.slice(1, 7).map((i) => [i.state, i.outcome])).toEqual(
      Array(6).fill(['refused', 'Not saved. Your hospital did not let the portal add it: the permission to add these records was not given.']),
    );
    expect(sent.items[0]!.outcome).toBe(
      'Not sent, because what it refers to was not saved: Average glucose, Time in ranges, Glucose management indicator (GMI), Glucose variability (CV), Days with sensor readings, Time the sensor was active.',
    );
    expect(sent.items[7]!.outcome).toBe('Not sent, because what it refers to was not saved: Glucose summary.');
    expect(r5.created).toHaveLength(created);

    // The hospital refuses the transaction with its reasons.
    r4.faults.refuseWrites = 'CGM summaries are accepted from enrolled devices only.';
    const { page: second } = await phonePage(suite.browser);
    expect(await openGlucosePage(second, suite.world, await patientCode())).toBe('report');
    expect(await sendToHospital(second, r4, R4)).toBe('sent');
    sent = await sentShown(second);
    expect(sent.summary).toBe('Nothing was saved at Fixture General Hospital. The list below says why.');
    expect(new Set(sent.items.map((i) => i.outcome))).toEqual(new Set(['Not saved. Your hospital refused it: CGM summaries are accepted from enrolled devices only.']));

    // The patient says no at the hospital.
    const { page: third } = await phonePage(suite.browser);
    expect(await openGlucosePage(third, suite.world, await patientCode())).toBe('report');
    const received = r4.received.length;
    expect(await sendToHospital(third, r4, R4, 'Deny')).toBe('send-problem');
    expect(await third.textContent('#send-problem')).toBe(SEND_PROBLEMS.denied);
    expect(r4.received).toHaveLength(received);
    // The report the patient saw is still shown.
    expect(await third.locator('#targets li').count()).toBe(6);
  }, FLOW_TIMEOUT);
});

describe('the hospitals the patient connected', () => {
  it('offers the hospital the record was imported from, sends there in one step, and still lets the patient choose another', async () => {
    const [r4, r5] = suite.world.fixtures as [(typeof suite.world.fixtures)[0], (typeof suite.world.fixtures)[0]];
    const { patient, link, code } = await sensorPatient(suite.world, { readings: true });
    const { page: importing } = await phonePage(suite.browser);
    expect(await runPortal(importing, link, r4, 'Allow', R4)).toBe('done');
    // The import names its FHIR Source after the hospital the patient chose.
    expect((await listFhirSourcesOfPatient(patient.id)).map((s) => [s.label, s.fhirBaseUrl])).toEqual([['Fixture General Hospital', r4.iss]]);

    const { page, errors } = await phonePage(suite.browser);
    expect(await openGlucosePage(page, suite.world, code)).toBe('report');
    expect(await connectedShown(page)).toEqual([{ name: 'Send to Fixture General Hospital', server: r4.iss, fhirBaseUrl: r4.iss }]);
    expect(await page.textContent('#send-button')).toBe('Send to another hospital');
    const [created, received] = [r4.created.length, r4.received.length];
    expect(await sendToConnected(page, r4, 0)).toBe('sent');
    expect(r4.received.slice(received).map((r) => r.via)).toEqual(['transaction']);
    expect(r4.created.slice(created).map((c) => c.resource.subject)).toEqual(Array(8).fill({ reference: `Patient/${r4.patientId}` }));
    expect((await sentShown(page)).summary).toBe('Sent to Fixture General Hospital: all 8 records were saved.');
    expect(await page.textContent('#sent-server')).toBe(r4.iss);
    expect(errors).toEqual([]);

    // Another hospital, from the picker.
    const { page: other } = await phonePage(suite.browser);
    expect(await openGlucosePage(other, suite.world, code)).toBe('report');
    await connectedShown(other);
    const before = r5.created.length;
    expect(await sendToHospital(other, r5, R5, 'Allow', 'Send to another hospital')).toBe('sent');
    expect(r5.created.length - before).toBe(8);
    expect((await sentShown(other)).summary).toBe('Sent to Fixture Community Clinic: all 8 records were saved.');
  }, FLOW_TIMEOUT);

  it('shows a hospital’s name and URL as text, switches to mmol/L with the figures converted, keeps the unit in the tab and sends in it', async () => {
    const r5 = suite.world.fixtures[1]!;
    const { patient, code, values } = await sensorPatient(suite.world, { readings: true });
    // A label as the directory may hold one (the API refuses markup in labels) and a URL the API takes as it is.
    const name = `<img src=x onerror="document.body.dataset.injected='name'"><b>Saint</b> Mary & Co`;
    const dataSource = await makeDataSource({ type: 'patient_app' });
    await makeFhirSource({ patient, dataSource, label: name, fhirBaseUrl: r5.iss });
    const markedUrl = `${r5.origin}/elsewhere/"><img/src=x/onerror=document.body.dataset.injected='url'>`;
    const registered = await fetch(`${suite.world.gateway.url}/api/v1/fhir_sources`, {
      method: 'POST',
      headers: { authorization: `Bearer ${(patient as typeof patient & { token: string }).token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ data_source: dataSource.id, label: 'Hospital records', fhir_base_url: markedUrl }),
    });
    expect(registered.status).toBe(201);

    const { page, errors } = await phonePage(suite.browser);
    expect(await openGlucosePage(page, suite.world, code)).toBe('report');
    expect(await connectedShown(page)).toEqual([
      { name: 'Send to Hospital records', server: markedUrl, fhirBaseUrl: markedUrl },
      { name: `Send to ${name}`, server: r5.iss, fhirBaseUrl: r5.iss },
    ]);
    expect(await page.locator('#connected-list img, #connected-list b').count()).toBe(0);

    // mg/dL first; the mean as uploaded (the period ends now: its first reading may fall outside it).
    const mean = values.reduce((a, v) => a + v, 0) / values.length;
    const figure = async () => (await page.textContent('#figures [data-figure=mean] dd'))!;
    const profileFigures = async () => (/ranged from ([\d.]+) to ([\d.]+) .*between ([\d.]+) and ([\d.]+) .*between ([\d.]+) and ([\d.]+) /.exec((await page.textContent('#agp-description'))!) ?? []).slice(1).map(Number);
    const inRange = async () => (await page.textContent('#targets [data-metric=timeInRange]'))!;
    const mgdl = await figure();
    expect(mgdl).toMatch(/^\d+\.?\d? mg\/dL$/);
    expect(Math.abs(parseFloat(mgdl) - mean)).toBeLessThan(0.5);
    const mgdlProfile = await profileFigures();
    expect(mgdlProfile).toHaveLength(6);
    const mgdlRange = await inRange();

    await page.getByLabel('mmol/L').check();
    await page.waitForSelector('body[data-state=report][data-unit="mmol/L"]', { timeout: 60_000 });
    const mmol = await figure();
    expect(mmol).toMatch(/^\d+\.\d{1,2} mmol\/L$/);
    // The same mean converted: mg/dL shown to a tenth, mmol/L to a hundredth.
    expect(Math.abs(parseFloat(mmol) - parseFloat(mgdl) / MGDL_PER_MMOLL)).toBeLessThan(0.01);
    // The profile's figures in words, each the mg/dL one converted (that one rounded to a whole mg/dL).
    const mmolProfile = await profileFigures();
    expect(mmolProfile.map((v, i) => Math.abs(v - mgdlProfile[i]! / MGDL_PER_MMOLL) < 0.1)).toEqual(Array(6).fill(true));
    expect(await page.textContent('#agp-description')).toMatch(/The target range is 3\.9 to 10\.0 mmol\/L\.$/);
    expect(await page.locator('#agp svg text').allTextContents()).toEqual(expect.arrayContaining(['3.0', '3.9', '10.0', '13.9']));
    expect(await page.textContent('#agp-target-range')).toBe('3.9 to 10.0 mmol/L');
    // The shares do not change with the unit; their labels do.
    const mmolRange = await inRange();
    expect(mmolRange.startsWith('Time in range (3.9-10.0 mmol/L)')).toBe(true);
    expect(mmolRange.replace('3.9-10.0 mmol/L', '70-180 mg/dL')).toBe(mgdlRange);
    expect(await noHorizontalScroll(page)).toBe(true);
    expect(await axe(page)).toEqual([]);
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, 'portal-glucose-mmol.png'), fullPage: true });

    // Remembered in the tab: the page opened again shows mmol/L.
    await page.goto(`${suite.world.gateway.url}${PORTAL_GLUCOSE_PATH}`);
    await page.waitForSelector('body[data-state=report]', { timeout: 60_000 });
    expect(await page.getAttribute('body', 'data-unit')).toBe('mmol/L');
    expect(await page.isChecked('#units input[value="mmol/L"]')).toBe(true);
    expect(await figure()).toBe(mmol);

    // Sent to the hospital named with markup: the name is text, the mean goes in mmol/L.
    const created = r5.created.length;
    expect(await sendToConnected(page, r5, 1)).toBe('sent');
    const sent = await sentShown(page);
    expect(sent.summary).toBe(`Sent to ${name}: all 8 records were saved.`);
    expect(await page.textContent('#sent-hospital')).toBe(name);
    expect(await page.locator('#sent img, #sent b').count()).toBe(0);
    const meanSent = r5.created.slice(created).find((c) => (c.resource.code as any).coding[0].code === MEAN_GLUCOSE['mmol/L'].code)!;
    expect((meanSent.resource.valueQuantity as any).code).toBe('mmol/L');
    expect((meanSent.resource.valueQuantity as any).value).toBeCloseTo(parseFloat(mmol), 2);
    expect(r5.created.slice(created).some((c) => (c.resource.code as any).coding[0].code === MEAN_GLUCOSE['mg/dL'].code)).toBe(false);
    expect(sent.items.find((i) => i.code === MEAN_GLUCOSE['mmol/L'].code)!.what).toBe(mmol);
    expect(await page.evaluate(() => Object.keys(sessionStorage).sort())).toEqual(['cdx.portal.invitation', 'cdx.portal.unit']);
    expect(await page.getAttribute('body', 'data-injected')).toBeNull();
    expect(errors).toEqual([]);
  }, FLOW_TIMEOUT);
});
