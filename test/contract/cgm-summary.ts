/**
 * THE tests of `Patient/<id>/$cgm-summary` through the FHIR handler, run on every set of stores the
 * test projects install (the in-memory twins: test/integration/observations/cgm-summary.test.ts;
 * DynamoDB Local: cgm-summary-store.test.ts). Hand-made sensor traces go through the upload path
 * (every 1, 5 or 15 minutes, in mg/dL and mmol/L, with gaps and a missing day, across a change of
 * daylight saving time, beside a glucometer's readings and one entered in error); each answer is
 * held to the summary computed straight from the readings sent (`summariseReadings`, one digest of
 * them all, rendered the same way) over the period the answer states, and a few of its figures to
 * plain computations. Then: the default period, the digests kept on write (a re-post, concurrent
 * uploads, a rebuild, a purge), who may ask, and the parameters refused.
 */
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import type { CgmReading } from '../../shared/cgm/digest';
import { config } from '../../shared/config';
import { cgmEntries, cgmResources } from '../../shared/cgm/fhir';
import { summariseReadings } from '../../shared/cgm/metrics';
import { OLDER_OR_HIGH_RISK_TARGETS } from '../../shared/cgm/thresholds';
import { MGDL_PER_MMOLL, type GlucoseUnit } from '../../shared/cgm/units';
import { UTC_CLOCK, zoneClock, type Clock } from '../../shared/cgm/zones';
import type { Caller } from '../../shared/auth/caller';
import { glucoseSummary } from '../../shared/observations/cgm/operation';
import { deletePatientObservations } from '../../shared/observations/delete';
import { rebuildSummaries } from '../../shared/observations/stats/keep';
import { summaryStore } from '../../shared/observations/store/summary-current';
import { code, makeOrganization, makePatient, makePractitioner, makeStudy, makeDataSource } from '../support/directory';
import { bandInMmolL, bandPercents, DAY, daysWithReadings, glucoseMembers, HOUR, mean, MINUTE, quantile, valuesByBin } from '../support/cgm';
import { call, type TestResponse } from '../support/invoke';
import { observation, statusesOf, upload, type ObservationWorld } from '../support/observations';

const GLUCOSE = 'omh:blood-glucose:4.0';
/** Readings a batch upload carries here. */
const BATCH = 500;

interface World extends ObservationWorld {
  study: { id: number };
  other: ObservationWorld['patient'];
  outsider: ObservationWorld['practitioner'];
}

/** A patient of a fresh organization with a sensor, a colleague patient, and a practitioner of another organization. */
async function world(): Promise<World> {
  const organization = await makeOrganization();
  const practitioner = (await makePractitioner({ organizations: [organization] })) as World['practitioner'];
  const [patient, other] = (await Promise.all([makePatient({ organizations: [organization], login: true }), makePatient({ organizations: [organization], login: true })])) as Array<World['patient']>;
  const device = await makeDataSource({ codes: [GLUCOSE] });
  const study = await makeStudy({ organization, codes: [GLUCOSE], patients: [patient!, other!], consent: true, dataSources: [device] });
  const outsider = (await makePractitioner({ organizations: [await makeOrganization()] })) as World['practitioner'];
  return { organization, practitioner, patient: patient!, other: other!, device, outsider, study };
}

/** A sensor reading as sent: its instant, clock, value in the unit sent. */
interface Sent {
  at: number;
  offsetMinutes: number;
  value: number;
  unit: GlucoseUnit;
  specimen?: string;
  status?: string;
}

const resourceOf = (w: World, r: Sent) => observation(w, { code: GLUCOSE, members: glucoseMembers(r.at, r.offsetMinutes, r.value, r.unit, r.specimen), ...(r.status ? { status: r.status } : {}) });

/** Uploads resources in batches through POST /FHIR/R5; every entry must be stored (or already be). */
async function send(w: World, resources: readonly unknown[]): Promise<void> {
  for (let i = 0; i < resources.length; i += BATCH) {
    const res = await upload(w.patient.token, resources.slice(i, i + BATCH));
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    for (const status of statusesOf(res)) expect(['201 Created', '200 OK']).toContain(status);
  }
}

/** The raw readings a trace's sensor readings are, as the test reads them: mg/dL from mmol/L by glucose's molar mass. */
const rawOf = (sent: readonly Sent[]): CgmReading[] =>
  sent.filter((r) => (r.specimen ?? 'interstitial fluid') === 'interstitial fluid' && r.status !== 'entered-in-error').map((r) => ({ at: r.at, offsetMinutes: r.offsetMinutes, mgdl: r.unit === 'mg/dL' ? r.value : r.value * MGDL_PER_MMOLL }));

/** Readings every `everyMinutes` from `start` for `days`, skipping `missing` instants. */
function trace(o: { start: number; everyMinutes: number; days: number; value: (i: number, at: number) => number; unit?: GlucoseUnit; offset?: (at: number) => number; missing?: (at: number) => boolean }): Sent[] {
  const out: Sent[] = [];
  const count = Math.round((o.days * DAY) / (o.everyMinutes * MINUTE));
  for (let i = 0; i < count; i += 1) {
    const at = o.start + i * o.everyMinutes * MINUTE;
    if (o.missing?.(at)) continue;
    out.push({ at, offsetMinutes: o.offset?.(at) ?? 0, value: o.value(i, at), unit: o.unit ?? 'mg/dL' });
  }
  return out;
}

const cgmOf = (operation: 'cgm-summary' | 'cgm-report', token: string, patientId: number, query = ''): Promise<TestResponse> =>
  call('GET', `/FHIR/R5/Patient/${patientId}/$${operation}${query ? `?${query}` : ''}`, { token });
const cgm = (token: string, patientId: number, query = ''): Promise<TestResponse> => cgmOf('cgm-summary', token, patientId, query);
const cgmPost = (token: string, patientId: number, parameter: unknown[]): Promise<TestResponse> =>
  call('POST', `/FHIR/R5/Patient/${patientId}/$cgm-summary`, { token, body: { resourceType: 'Parameters', parameter } });

type Resource = Record<string, unknown>;
const resourcesOf = (res: TestResponse): Resource[] => (res.json.entry as Array<{ resource: Resource }>).map((e) => e.resource);

/** A resource without its references to other entries (their `fullUrl`s are the answer's own). */
const withoutReferences = ({ hasMember: _members, ...rest }: Resource) => rest;

/** The period an answer states (its summary's effectivePeriod) as instants `[from, to)`. */
function statedPeriod(res: TestResponse, clock: Clock): { from: number; to: number } {
  const { start, end } = resourcesOf(res)[0]!.effectivePeriod as { start: string; end: string };
  if (start.length === 10) {
    const midnight = (date: string) => {
      const guess = Date.parse(`${date}T00:00:00Z`);
      return guess - clock(guess - clock(guess) * MINUTE) * MINUTE;
    };
    return { from: midnight(start), to: midnight(new Date(Date.parse(`${end}T00:00:00Z`) + DAY).toISOString().slice(0, 10)) };
  }
  return { from: Date.parse(start), to: Date.parse(end) + 1 };
}

/**
 * The answer is a collection Bundle of the summary, its members and the profile, each entry
 * referenced from the summary by its fullUrl, and every resource equal to the rendering of the
 * summary computed straight from the raw readings over the period the answer states.
 */
function expectRawSummary(res: TestResponse, w: World, raw: readonly CgmReading[], options: { unit?: GlucoseUnit; clock?: Clock; targets?: typeof OLDER_OR_HIGH_RISK_TARGETS } = {}) {
  expect(res.status, res.text.slice(0, 500)).toBe(200);
  expect(res.json).toMatchObject({ resourceType: 'Bundle', type: 'collection' });
  const entries = res.json.entry as Array<{ fullUrl: string; resource: Resource }>;
  expect(entries).toHaveLength(8);
  expect(entries[0]!.resource.hasMember).toEqual(entries.slice(1).map((e) => ({ reference: e.fullUrl })));
  const clock = options.clock ?? UTC_CLOCK;
  const period = statedPeriod(res, clock);
  const summary = summariseReadings(raw, { period, ...(options.targets ? { targets: options.targets } : {}) });
  const expected = cgmEntries(cgmResources(summary, { subject: `Patient/${w.patient.id}`, unit: options.unit ?? 'mg/dL', periodClock: clock }));
  expect(resourcesOf(res).map(withoutReferences)).toEqual(expected.map((e) => withoutReferences(e.resource)));
  return { summary, period };
}

const notesOf = (res: TestResponse): string[] => ((resourcesOf(res)[0]!.note ?? []) as Array<{ text: string }>).map((n) => n.text);
/** A component of the times in ranges panel by its LOINC code: its value. */
const bandValue = (res: TestResponse, loinc: string) => ((resourcesOf(res)[2]!.component as Array<{ code: { coding: Array<{ code: string }> }; valueQuantity: { value: number } }>).find((c) => c.code.coding[0]!.code === loinc))!.valueQuantity.value;
/** The profile's series by component code (`p50`, `bin-readings`): the offsets (minutes) and values. */
function profileSeries(res: TestResponse, which: string): Map<number, number> {
  const component = (resourcesOf(res)[7]!.component as Array<{ code: { coding: Array<{ code: string }> }; valueSampledData: { offsets?: string; data?: string } }>).find((c) => c.code.coding[0]!.code === which)!;
  const offsets = component.valueSampledData.offsets?.split(' ').map(Number) ?? [];
  const data = component.valueSampledData.data?.split(' ').map(Number) ?? [];
  return new Map(offsets.map((o, i) => [o, data[i]!]));
}

export function cgmSummarySuite(): void {
  describe('Patient/$cgm-summary', () => {
    it('14 days every 15 minutes, all in range: sufficient, every target met, figures as plain arithmetic gives them', async () => {
      const w = await world();
      const start = Date.UTC(2025, 5, 1);
      const sent = trace({ start, everyMinutes: 15, days: 14, value: (i) => 90 + ((i * 37) % 80) });
      await send(w, sent.map((r) => resourceOf(w, r)));
      const res = await cgm(w.practitioner.token, w.patient.id, 'start=2025-06-01&end=2025-06-14');
      const raw = rawOf(sent);
      const { summary } = expectRawSummary(res, w, raw);
      expect(resourcesOf(res)[0]!.effectivePeriod).toEqual({ start: '2025-06-01', end: '2025-06-14' });
      expect(summary.sufficiency.sufficient).toBe(true);
      expect(notesOf(res).every((n) => n.endsWith(': met.'))).toBe(true);
      expect(bandValue(res, '97510-2')).toBe(100);
      expect((resourcesOf(res)[1]!.valueQuantity as { value: number }).value).toBe(Number(mean(raw.map((r) => r.mgdl)).toFixed(1)));
      expect((resourcesOf(res)[5]!.valueQuantity as { value: number }).value).toBe(14);
      expect((resourcesOf(res)[6]!.valueQuantity as { value: number }).value).toBe(100);
      // The profile's median per bin is the plain median of the bin's values (whole mg/dL: exact).
      const bins = valuesByBin(raw);
      for (const [minute, p50] of profileSeries(res, 'p50')) expect(p50).toBe(Number(quantile(bins[minute / 15]!, 0.5).toFixed(2)));
      // The same by POST, the older-or-high-risk targets.
      const posted = await cgmPost(w.patient.token, w.patient.id, [
        { name: 'start', valueDate: '2025-06-01' },
        { name: 'end', valueDate: '2025-06-14' },
        { name: 'targets', valueCode: 'older-or-high-risk' },
      ]);
      expectRawSummary(posted, w, raw, { targets: OLDER_OR_HIGH_RISK_TARGETS });
      expect(notesOf(posted)[0]).toMatch(/^Time in range \(70-180 mg\/dL\): 100% \(target > 50%\): met\.$/);
    });

    it('all low, every 5 minutes, in mmol/L, asked in mmol/L: too short a period, and said so', async () => {
      const w = await world();
      const start = Date.UTC(2025, 6, 1);
      const sent = trace({ start, everyMinutes: 5, days: 2, unit: 'mmol/L', value: (i) => [2.6, 2.9, 3.1, 3.4, 3.8][i % 5]! });
      await send(w, sent.map((r) => resourceOf(w, r)));
      const res = await cgm(w.patient.token, w.patient.id, 'start=2025-07-01&end=2025-07-02&unit=mmol/L');
      const raw = rawOf(sent);
      expectRawSummary(res, w, raw, { unit: 'mmol/L' });
      expect(resourcesOf(res)[1]!.code).toMatchObject({ coding: [{ code: '105273-7' }] });
      expect((resourcesOf(res)[1]!.valueQuantity as { unit: string; code: string })).toMatchObject({ unit: 'mmol/l', code: 'mmol/L' });
      // 2.6 and 2.9 mmol/L are very low, 3.1, 3.4 and 3.8 low, as the consensus's bands in mmol/L read them.
      const plain = bandPercents(raw, (r) => bandInMmolL(r.mgdl / MGDL_PER_MMOLL));
      expect(plain.veryLow! + plain.low!).toBe(100);
      const bands = ['104642-4', '104641-6', '97510-2', '104640-8', '104639-0'].map((loinc) => bandValue(res, loinc));
      expect(bands).toEqual(['veryLow', 'low', 'target', 'high', 'veryHigh'].map((band) => Number(plain[band]!.toFixed(2))));
      expect(notesOf(res)).toContain('Not sufficient: the period is 2 days, and at least 14 are needed.');
      expect(notesOf(res)).toContain(`Time below 3.0 mmol/L: ${bands[0]}% (target < 1%): not met.`);
    });

    it('gaps: an outage, a missing day and a period cut within days, the edges read from the readings', async () => {
      const w = await world();
      const start = Date.UTC(2025, 7, 1);
      const sent = trace({
        start,
        everyMinutes: 5,
        days: 4,
        value: (i) => 60 + ((i * 53) % 220),
        missing: (at) => (at >= start + 9 * HOUR && at < start + 15 * HOUR) || (at >= start + 2 * DAY && at < start + 3 * DAY),
      });
      await send(w, sent.map((r) => resourceOf(w, r)));
      const res = await cgm(w.practitioner.token, w.patient.id, 'start=2025-08-01T10:00:00Z&end=2025-08-04T15:29:59Z');
      const { summary, period } = expectRawSummary(res, w, rawOf(sent));
      expect(period).toEqual({ from: Date.parse('2025-08-01T10:00:00Z'), to: Date.parse('2025-08-04T15:30:00Z') });
      expect(resourcesOf(res)[0]!.effectivePeriod).toEqual({ start: '2025-08-01T10:00:00Z', end: '2025-08-04T15:29:59.999Z' });
      // The 24-hour days from its start holding a reading: the missing UTC day falls across two of them.
      expect(summary.daysOfWear).toBe(daysWithReadings(rawOf(sent).filter((r) => r.at >= period.from && r.at < period.to), period.from));
      expect(summary.daysOfWear).toBe(4);
      expect(summary.sensorActivePercent).toBeLessThan(70);
      expect(notesOf(res).some((n) => n.startsWith('Not sufficient: the sensor was active'))).toBe(true);
    });

    it("a period cut within days: the edges' whole hours from their kept digests, readings only of a part of an hour that cuts through its readings", async () => {
      const w = await world();
      const start = Date.UTC(2025, 7, 1);
      // Every 5 minutes for three days, the last reading at 15:30 on the third.
      const sent = trace({ start, everyMinutes: 5, days: 3, value: (i) => 60 + ((i * 29) % 230), missing: (at) => at > start + 2 * DAY + 15.5 * HOUR });
      await send(w, sent.map((r) => resourceOf(w, r)));
      const caller: Caller = { kind: 'patient', userId: w.patient.id, patientId: w.patient.id, scopes: [] };
      const request = { subject: `Patient/${w.patient.id}`, start: '2025-08-01T10:20:00Z', end: '2025-08-03T15:39:59Z' };
      const period = { from: Date.parse(request.start), to: Date.parse('2025-08-03T15:40:00Z') };
      const expected = summariseReadings(rawOf(sent), { period });
      const answer = async () => {
        const result = await glucoseSummary(caller, request);
        expect({ ...result.summary, glucose: undefined }).toEqual({ ...expected, glucose: undefined });
        expect(result.summary.glucose!.meanMgdl).toBeCloseTo(expected.glucose!.meanMgdl, 9);
        expect(result.summary.glucose!.bands).toEqual(expected.glucose!.bands);
        return result.sources;
      };
      // 2 August from its digest; 11:00-24:00 on 1 August and 00:00-15:00 on 3 August from their hours' (28); 15:00-15:40 too,
      // as every reading of that hour lies in it; 10:20-11:00 cuts through its hour: its 8 readings are read.
      expect(await answer()).toEqual({ daysFromDigests: 1, hoursFromDigests: 29, readingsRead: 8 });
      // A day kept before its hours were (no counts by hour): its part is read from its readings, and a rebuild puts it right.
      const glucose = (await code(GLUCOSE)).id;
      const { cgmHours: _hours, ...before } = (await summaryStore().day(w.patient.id, glucose, '2025-08-01'))!;
      expect(await summaryStore().keep(before, 'repair')).toBe(true);
      expect(await answer()).toEqual({ daysFromDigests: 1, hoursFromDigests: 16, readingsRead: 8 + 13 * 12 });
      expect(await rebuildSummaries(w.patient.id)).toEqual({ days: 3, repaired: 1 });
      expect(await answer()).toEqual({ daysFromDigests: 1, hoursFromDigests: 29, readingsRead: 8 });
      // An hour whose kept digest is not the one its day counts (an upload that has written the hour, not yet the day) is read too.
      const [hour] = await summaryStore().hours(w.patient.id, glucose, ['2025-08-03T07'], true);
      await summaryStore().keep((await summaryStore().day(w.patient.id, glucose, '2025-08-03'))!, 'repair', [{ hour: 7, digest: { ...hour!.digest, count: 13 } }]);
      expect(await answer()).toEqual({ daysFromDigests: 1, hoursFromDigests: 28, readingsRead: 8 + 12 });
      // A purge takes the hours with the days.
      await deletePatientObservations(w.patient.id);
      expect(await summaryStore().hours(w.patient.id, glucose, ['2025-08-03T07', '2025-08-01T12'], false)).toEqual([]);
    });

    it('the days of a time zone across a change of daylight saving time, the profile on the readings\u2019 own clocks', async () => {
      const w = await world();
      const la = zoneClock('America/Los_Angeles')!;
      // 2026-03-07 00:00 PST to 2026-03-10 00:00 PDT, every 5 minutes; the clocks go forward at 02:00 on the 8th.
      const start = Date.parse('2026-03-07T08:00:00Z');
      const sent = trace({ start, everyMinutes: 5, days: 3, offset: la, value: (i, at) => Math.round(130 + 60 * Math.sin((2 * Math.PI * ((at - start) % DAY)) / DAY)) + (i % 7) });
      expect(new Set(sent.map((r) => r.offsetMinutes))).toEqual(new Set([-480, -420]));
      await send(w, sent.map((r) => resourceOf(w, r)));
      const res = await cgm(w.practitioner.token, w.patient.id, 'start=2026-03-07&end=2026-03-09&timeZone=America/Los_Angeles');
      const raw = rawOf(sent);
      const { period } = expectRawSummary(res, w, raw, { clock: la });
      expect(resourcesOf(res)[0]!.effectivePeriod).toEqual({ start: '2026-03-07', end: '2026-03-09' });
      // Three local days, one of them 23 hours long.
      expect(period).toEqual({ from: start, to: Date.parse('2026-03-10T07:00:00Z') });
      // The skipped hour's bins hold the other two days' readings only; the others all three days'.
      const counts = profileSeries(res, 'bin-readings');
      const inPeriod = raw.filter((r) => r.at >= period.from && r.at < period.to);
      const plain = valuesByBin(inPeriod).map((values) => values.length);
      for (const [minute, n] of counts) expect(n, `bin ${minute}`).toBe(plain[minute / 15]);
      expect(counts.get(120)).toBe(6);
      expect(counts.get(180)).toBe(9);
    });

    it('every minute, a day across UTC midnight on a +05:30 clock, with a glucometer reading and one entered in error left out', async () => {
      const w = await world();
      const start = Date.UTC(2025, 8, 1, 12);
      const sent: Sent[] = [
        ...trace({ start, everyMinutes: 1, days: 1, offset: () => 330, value: (i) => 70 + ((i * 7) % 150) + (i % 3) / 10 }),
        { at: start + 30 * MINUTE + 20_000, offsetMinutes: 330, value: 400, unit: 'mg/dL', specimen: 'capillary blood' },
        { at: start + 31 * MINUTE + 20_000, offsetMinutes: 330, value: 400, unit: 'mg/dL', status: 'entered-in-error' },
      ];
      await send(w, sent.map((r) => resourceOf(w, r)));
      const raw = rawOf(sent);
      expect(raw).toHaveLength(1440);
      const res = await cgm(w.patient.token, w.patient.id, 'start=2025-09-01T17:30:00%2B05:30&end=2025-09-02T17:29:59.999%2B05:30');
      const { summary } = expectRawSummary(res, w, raw);
      expect(summary.readings).toBe(1440);
      expect(summary.interval).toEqual({ minutes: 1, source: 'readings' });
      expect(summary.glucose!.maxMgdl).toBeLessThan(400);
    });

    it('the default period: the last 14 days ending now', async () => {
      const w = await world();
      const now = Date.now();
      const sent = trace({ start: now - 2 * DAY, everyMinutes: 15, days: 2, value: (i) => 100 + (i % 90) });
      await send(w, sent.map((r) => resourceOf(w, r)));
      const before = Date.now();
      const res = await cgm(w.patient.token, w.patient.id);
      const after = Date.now();
      const { period } = expectRawSummary(res, w, rawOf(sent));
      expect(period.to - period.from).toBe(14 * DAY);
      expect(period.to).toBeGreaterThan(before);
      expect(period.to).toBeLessThanOrEqual(after + 1);
    });

    it('keeps each day\u2019s digest on write: a re-post counts once, concurrent uploads of a day all count, a rebuild restores a lost digest, a purge removes them', async () => {
      const w = await world();
      const start = Date.UTC(2025, 9, 1);
      const sent = trace({ start, everyMinutes: 5, days: 2, value: (i) => 80 + ((i * 11) % 170) });
      const resources = sent.map((r) => resourceOf(w, r));
      // Two uploads of interleaved halves of the same days at once.
      await Promise.all([send(w, resources.filter((_, i) => i % 2 === 0)), send(w, resources.filter((_, i) => i % 2 === 1))]);
      await send(w, resources);
      const query = 'start=2025-10-01&end=2025-10-02';
      const raw = rawOf(sent);
      expectRawSummary(await cgm(w.patient.token, w.patient.id, query), w, raw);
      const glucose = (await code(GLUCOSE)).id;
      const range = { from: '2025-10-01', to: '2025-10-02' };
      const kept = await summaryStore().digests(w.patient.id, glucose, range);
      expect(kept.map((d) => [d.day, typeof d.digest === 'object' && d.digest.count])).toEqual([['2025-10-01', 288], ['2025-10-02', 288]]);
      // A summary kept before digests were: the day is read from its readings, and a rebuild writes its digest.
      const first = (await summaryStore().day(w.patient.id, glucose, '2025-10-01'))!;
      const { cgm: _lost, ...withoutDigest } = first;
      expect(await summaryStore().keep(withoutDigest, 'repair')).toBe(true);
      expect((await summaryStore().digests(w.patient.id, glucose, range))[0]!.digest).toBeUndefined();
      expectRawSummary(await cgm(w.patient.token, w.patient.id, query), w, raw);
      expect(await rebuildSummaries(w.patient.id)).toEqual({ days: 2, repaired: 1 });
      expect(await summaryStore().digests(w.patient.id, glucose, range)).toEqual(kept);
      await deletePatientObservations(w.patient.id);
      expect(await summaryStore().digests(w.patient.id, glucose, range)).toEqual([]);
      const empty = await cgm(w.patient.token, w.patient.id, query);
      expectRawSummary(empty, w, []);
      expect(notesOf(empty)).toContain('Not sufficient: the period holds no glucose readings.');
    });

    it('the patient themself, their organization\u2019s practitioners; anyone else is refused', async () => {
      const w = await world();
      const answers = await Promise.all([w.patient.token, w.practitioner.token].map((token) => cgm(token, w.patient.id, 'start=2025-06-01&end=2025-06-14')));
      for (const res of answers) expect(res.status).toBe(200);
      // The same question answers the same entries (ids named by the question); another question, others.
      const fullUrls = (res: TestResponse) => (res.json.entry as Array<{ fullUrl: string }>).map((e) => e.fullUrl);
      expect(fullUrls(answers[0]!)).toEqual(fullUrls(answers[1]!));
      expect(new Set(fullUrls(answers[0]!)).size).toBe(8);
      const other = await cgm(w.patient.token, w.patient.id, 'start=2025-06-01&end=2025-06-14&unit=mmol/L');
      expect(fullUrls(other).filter((u) => fullUrls(answers[0]!).includes(u))).toEqual([]);
      for (const [token, patient] of [
        [w.other.token, w.patient.id],
        [w.outsider.token, w.patient.id],
        [w.patient.token, w.other.id],
        [w.patient.token, 999_999_999],
      ] as const) {
        const res = await cgm(token, patient);
        expect(res.status, `${patient}: ${res.text}`).toBe(403);
        expect(res.json.resourceType).toBe('OperationOutcome');
      }
      expect((await cgm('', w.patient.id)).status).toBe(401);
    });

    it('$cgm-report: the same summary, and last the guide\u2019s DiagnosticReport presenting it with the one-page AGP report as a PDF', async () => {
      const w = await world();
      const start = Date.UTC(2025, 5, 1);
      const sent = trace({ start, everyMinutes: 15, days: 20, value: (i) => 60 + ((i * 37) % 200) });
      await send(w, sent.map((r) => resourceOf(w, r)));
      const question = 'start=2025-06-01&end=2025-06-20&unit=mmol/L';
      const [summary, report] = await Promise.all([cgm(w.practitioner.token, w.patient.id, question), cgmOf('cgm-report', w.practitioner.token, w.patient.id, question)]);
      expect(report.status, report.text.slice(0, 500)).toBe(200);
      const entries = report.json.entry as Array<{ fullUrl: string; resource: Resource }>;
      expect(entries).toHaveLength(9);
      // The summary's resources are $cgm-summary's, entry for entry (their fullUrls the report question's own).
      expect(resourcesOf(report).slice(0, 8).map(withoutReferences)).toEqual(resourcesOf(summary).map(withoutReferences));
      expect(entries.map((e) => e.fullUrl).filter((u) => (summary.json.entry as Array<{ fullUrl: string }>).some((e) => e.fullUrl === u))).toEqual([]);
      const diagnostic = entries[8]!.resource as Resource & { presentedForm: Array<{ contentType: string; data: string }> };
      expect(diagnostic).toMatchObject({
        resourceType: 'DiagnosticReport',
        status: 'final',
        code: { coding: [{ system: 'http://loinc.org', code: '107931-8' }] },
        subject: { reference: `Patient/${w.patient.id}` },
        effectivePeriod: { start: '2025-06-01', end: '2025-06-20' },
        result: [{ reference: entries[0]!.fullUrl }],
      });
      expect(diagnostic.presentedForm).toHaveLength(1);
      expect(diagnostic.presentedForm[0]!.contentType).toBe('application/pdf');
      const pdf = await PDFDocument.load(Buffer.from(diagnostic.presentedForm[0]!.data, 'base64'));
      expect(pdf.getPageCount()).toBe(1);
      expect(pdf.getTitle()).toContain(`${w.patient.nameGiven} ${w.patient.nameFamily}`);
      expect(pdf.getTitle()).toContain('2025-06-01');
      // Another patient's report is refused as their summary is; a parameter it does not take is a 400 naming the operation.
      expect((await cgmOf('cgm-report', w.other.token, w.patient.id, question)).status).toBe(403);
      const refused = await cgmOf('cgm-report', w.patient.token, w.patient.id, 'format=pdf');
      expect(refused.status).toBe(400);
      expect(refused.json.issue[0].diagnostics).toContain('$cgm-report');
    });

    it('Group/$cgm-summary: a row per participant, each the summary of their raw readings; a patient sees their own row, an outsider no study', async () => {
      const w = await world();
      const start = Date.UTC(2025, 7, 1);
      const mine = trace({ start, everyMinutes: 15, days: 14, value: (i) => 70 + ((i * 37) % 150) });
      const theirs = trace({ start, everyMinutes: 5, days: 14, value: (i) => 5 + ((i * 13) % 9), unit: 'mmol/L' });
      await send(w, mine.map((r) => resourceOf(w, r)));
      const other = { ...w, patient: w.other };
      await send(other, theirs.map((r) => resourceOf(other, r)));
      const table = (token: string) => call('GET', `/FHIR/R5/Group/${w.study.id}/$cgm-summary?start=2025-08-01&end=2025-08-14`, { token });
      const res = await table(w.practitioner.token);
      expect(res.status, res.text.slice(0, 300)).toBe(200);
      expect(res.json.resourceType).toBe('Parameters');
      type Part = { name: string; [value: string]: unknown };
      const parameters = res.json.parameter as Array<Part & { part?: Part[] }>;
      expect(parameters.slice(0, 3)).toEqual([
        { name: 'study', valueReference: { reference: `Group/${w.study.id}` } },
        { name: 'period', valuePeriod: { start: '2025-08-01', end: '2025-08-14' } },
        { name: 'unit', valueCode: 'mg/dL' },
      ]);
      const rows = parameters.filter((p) => p.name === 'participant').map((p) => new Map(p.part!.map((part) => [part.name, part])));
      expect(rows.map((r) => (r.get('patient')!.valueReference as { reference: string }).reference)).toEqual([w.patient.id, w.other.id].sort((a, b) => a - b).map((id) => `Patient/${id}`));
      const period = { from: start, to: start + 14 * DAY };
      for (const [patientId, sent] of [[w.patient.id, mine], [w.other.id, theirs]] as const) {
        const row = rows.find((r) => (r.get('patient')!.valueReference as { reference: string }).reference === `Patient/${patientId}`)!;
        const raw = rawOf(sent);
        const expected = summariseReadings(raw, { period });
        expect(row.get('readings')!.valueInteger).toBe(raw.length);
        expect((row.get('mean')!.valueQuantity as { value: number }).value).toBe(Number(mean(raw.map((r) => r.mgdl)).toFixed(1)));
        expect(row.get('sufficient')!.valueBoolean).toBe(expected.sufficiency.sufficient);
        for (const band of ['veryLow', 'low', 'target', 'high', 'veryHigh'] as const) {
          expect(row.get(`${band}Percent`)!.valueDecimal, band).toBe(Number(expected.glucose!.bands[band].percent.toFixed(2)));
        }
      }
      // The patient sees their own row; a practitioner of another organization, no such study.
      const own = await table(w.patient.token);
      expect(own.status).toBe(200);
      expect((own.json.parameter as Part[]).filter((p) => p.name === 'participant')).toHaveLength(1);
      expect(JSON.stringify(own.json)).not.toContain(`Patient/${w.other.id}"`);
      expect((await table(w.outsider.token)).status).toBe(404);
      expect((await call('GET', `/FHIR/R5/Group/${w.study.id}/$cgm-summary?unit=g`, { token: w.practitioner.token })).status).toBe(400);
    });

    it('is listed on Patient in the CapabilityStatement, with its definition under the namespace', async () => {
      const res = await call('GET', '/FHIR/R5/metadata');
      const patient = res.json.rest[0].resource.find((r: { type: string }) => r.type === 'Patient');
      expect(patient.operation).toEqual(
        expect.arrayContaining(
          ['cgm-summary', 'cgm-report'].map((name) => expect.objectContaining({ name, definition: `${config().namespace}/OperationDefinition/Patient-${name}`, documentation: expect.stringContaining('docs/cgm.md') })),
        ),
      );
      const group = res.json.rest[0].resource.find((r: { type: string }) => r.type === 'Group');
      expect(group.operation).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'cgm-summary', definition: `${config().namespace}/OperationDefinition/Group-cgm-summary` })]));
    });

    it('bad parameters are a 400 OperationOutcome naming the parameter', async () => {
      const w = await world();
      const cases: Array<[string, string]> = [
        ['unit=g', 'unit'],
        ['targets=children', 'targets'],
        ['start=2025-06-10&end=2025-06-01', 'end'],
        ['start=yesterday', 'start'],
        ['end=2025-13-01', 'end'],
        ['start=2020-01-01&end=2025-01-01', 'start'],
        ['timeZone=Mars/Olympus_Mons', 'timeZone'],
        ['timeZone=__proto__', 'timeZone'],
        ['period=2025-06-01/2025-06-02', 'period'],
        ['unit=mg/dL&unit=mmol/L', 'unit'],
      ];
      for (const [query, at] of cases) {
        const res = await cgm(w.patient.token, w.patient.id, query);
        expect(res.status, `${query}: ${res.text}`).toBe(400);
        expect(res.json.resourceType).toBe('OperationOutcome');
        expect(JSON.stringify(res.json.issue[0].expression ?? res.json.issue[0].location ?? []), query).toContain(at);
      }
      const mixed = await call('POST', `/FHIR/R5/Patient/${w.patient.id}/$cgm-summary?unit=mg/dL`, { token: w.patient.token, body: { resourceType: 'Parameters' } });
      expect(mixed.status).toBe(400);
      expect((await cgmPost(w.patient.token, w.patient.id, [{ name: 'start', valueCoding: { code: 'x' } }])).status).toBe(400);
    });
  });
}
