/**
 * The glucose page in headless Chromium, with the picker's two fixture hospitals taking writes (the
 * R4 one by transaction, the R5 one in batches): a patient's 14 days of sensor readings uploaded
 * through the service's API shown as the consensus targets, the figures and the AGP, with the PDF to
 * download; a patient without readings sees one sentence. "Send to my hospital" sends the CGM guide's
 * submission to each hospital (R4 converted, R5 as is; one POST each when the hospital offers no
 * Bundle), the hospital receives it about its own patient and the page lists what was sent; refusals
 * (no permission, the hospital's own reasons, the patient saying no) are plain sentences.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../local/runtime';
import { SUMMARY_PANEL } from '../../shared/cgm/codes';
import { NO_READINGS } from '../../shared/portal/cgm-view';
import { PORTAL_GLUCOSE_PATH } from '../../shared/portal/config';
import { SEND_PROBLEMS } from '../../shared/portal/send-report';
import { axe, FLOW_TIMEOUT, noHorizontalScroll, phonePage, portalSuite } from '../support/portal';
import { openGlucosePage, sendToHospital, sensorPatient, sentShown } from '../support/portal-glucose';

const RESULTS = join(REPO_ROOT, 'test-results');
const suite = portalSuite({ picker: true, count: 3, pageSize: 10 });
const R4 = { words: 'springfield north', facility: 'Fixture General North Clinic' };
const R5 = { words: 'comunitaria', facility: 'Clínica Comunitária São Paulo' };
const MEMBERS = ['97507-8', '106793-3', '97506-0', '104638-2', '104636-6', '104637-4'];

afterEach(() => {
  for (const f of suite.world.fixtures) Object.assign(f.faults, { withholdWriteScopes: false, refuseWrites: undefined });
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
