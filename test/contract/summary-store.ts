/**
 * THE contract of the day summaries' store port (shared/observations/store/summary-port.ts), run
 * against every adapter: keeping under the rule (never a summary of fewer readings over one of
 * more; a repair also over one of as many), reading a day and a range of days (with or without
 * histograms; each group with its specimen), the value bounds by hour (a value search's plan), the histogram bound, the CGM
 * digests (a period's days, and their bound), and deleting a patient's. With the observation store on the
 * same adapter, the domain's keeping (`keepDaySummaries` through `storeObservations`) and
 * `rebuildSummaries` too. Each test makes its own patients.
 */
import { randomInt } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DIGEST_VERSION, figuresOf, summariseDay as digestOf, type CgmFigures, type CgmReading } from '../../shared/cgm/digest';
import type { DaySummary, ValueGroup } from '../../shared/observations/stats/day-summary';
import { DIGEST_NOT_KEPT, groupOf } from '../../shared/observations/stats/day-summary';
import { DIGEST_BUDGET, HISTOGRAM_BUDGET } from '../../shared/observations/store/dynamo-summaries';
import { useSummaryStore, summaryStore } from '../../shared/observations/store/summary-current';
import type { SummaryStore } from '../../shared/observations/store/summary-port';

export type SummaryAdapter = [name: string, make: () => SummaryStore];

const newPatient = () => 700_000_000 + randomInt(100_000_000);
const heartRates = (values: number[]): ValueGroup => groupOf(0, 's-1', true, values);

function summary(patientId: number, day: string, values: number[], codeId = 4): DaySummary {
  return { patientId, codeId, day, readings: values.length, groups: [heartRates(values)] };
}

export function summaryStoreContract(adapters: readonly SummaryAdapter[]): void {
  describe.each(adapters)('summary store: %s', (_name, make) => {
    let previous: SummaryStore | undefined;
    beforeEach(() => void (previous = useSummaryStore(make())));
    afterEach(() => void useSummaryStore(previous!));

    it('keeps a summary and gives it back as kept, histogram included', async () => {
      const patient = newPatient();
      const kept = summary(patient, '2025-06-01', [1.2, 1.2, 1.25, 0.1 + 0.2]);
      expect(await summaryStore().keep(kept, 'from-more-readings')).toBe(true);
      expect(await summaryStore().day(patient, 4, '2025-06-01')).toEqual(kept);
      expect(await summaryStore().day(patient, 4, '2025-06-02')).toBeUndefined();
      expect(await summaryStore().day(patient, 5, '2025-06-01')).toBeUndefined();
    });

    it('never replaces a summary of more readings with one of fewer; a repair replaces one of as many', async () => {
      const patient = newPatient();
      const three = summary(patient, '2025-06-01', [1, 2, 3]);
      expect(await summaryStore().keep(three, 'from-more-readings')).toBe(true);
      expect(await summaryStore().keep(summary(patient, '2025-06-01', [1, 2]), 'from-more-readings')).toBe(false);
      expect(await summaryStore().keep(summary(patient, '2025-06-01', [1, 2]), 'repair')).toBe(false);
      expect(await summaryStore().keep(summary(patient, '2025-06-01', [7, 8, 9]), 'from-more-readings')).toBe(false);
      expect(await summaryStore().day(patient, 4, '2025-06-01')).toEqual(three);
      const repaired = summary(patient, '2025-06-01', [7, 8, 9]);
      expect(await summaryStore().keep(repaired, 'repair')).toBe(true);
      expect(await summaryStore().day(patient, 4, '2025-06-01')).toEqual(repaired);
      const four = summary(patient, '2025-06-01', [1, 2, 3, 4]);
      expect(await summaryStore().keep(four, 'from-more-readings')).toBe(true);
      expect(await summaryStore().day(patient, 4, '2025-06-01')).toEqual(four);
    });

    it('reads the days of a code within a range, in day order, with histograms only when asked', async () => {
      const patient = newPatient();
      for (const day of ['2025-06-03', '2025-05-31', '2025-06-01', '2025-06-30', '2025-07-01']) await summaryStore().keep(summary(patient, day, [1, 2]), 'from-more-readings');
      await summaryStore().keep(summary(patient, '2025-06-02', [5], 9), 'from-more-readings');
      const days = await summaryStore().days(patient, 4, { from: '2025-06-01', to: '2025-06-30' }, true);
      expect(days.map((d) => d.day)).toEqual(['2025-06-01', '2025-06-03', '2025-06-30']);
      expect(days[0]!.groups[0]!.histogram).toEqual(new Map([[1, 1], [2, 1]]));
      const bare = await summaryStore().days(patient, 4, { from: '2025-06-01', to: '2025-06-30' }, false);
      expect(bare.map((d) => d.groups[0]!.histogram)).toEqual([undefined, undefined, undefined]);
      expect(bare[0]!.groups[0]!.count).toBe(2);
    });

    it("keeps each member's value bounds by hour, and reads a code's days' bounds alone", async () => {
      const patient = newPatient();
      const bounds = [
        { member: 0, unit: 'kg', hours: [[0, 70.5, 71] as [number, number, number], [13, 0.1 + 0.2, 0.1 + 0.2] as [number, number, number], [23, -Infinity, Infinity] as [number, number, number]] },
        { member: 0, unit: 'lb; 100%', hours: [[5, 150, 154.3] as [number, number, number]] },
      ];
      const withBounds = { ...summary(patient, '2025-06-01', [1, 2]), bounds };
      const noValues = { ...summary(patient, '2025-06-02', []), bounds: [] };
      const before = summary(patient, '2025-06-03', [1]);
      for (const s of [withBounds, noValues, before]) expect(await summaryStore().keep(s, 'from-more-readings')).toBe(true);
      expect(await summaryStore().day(patient, 4, '2025-06-01')).toEqual(withBounds);
      expect((await summaryStore().day(patient, 4, '2025-06-02'))!.bounds).toEqual([]);
      expect((await summaryStore().day(patient, 4, '2025-06-03'))!.bounds).toBeUndefined();
      expect(await summaryStore().bounds(patient, 4, { from: '2025-06-01', to: '2025-06-30' })).toEqual([
        { day: '2025-06-01', bounds },
        { day: '2025-06-02', bounds: [] },
        { day: '2025-06-03', bounds: undefined },
      ]);
      expect(await summaryStore().bounds(patient, 9, { from: '2025-06-01', to: '2025-06-30' })).toEqual([]);
      // The statistics' reads leave them out.
      expect((await summaryStore().days(patient, 4, { from: '2025-06-01', to: '2025-06-01' }, true))[0]!.bounds).toBeUndefined();
    });

    it("keeps each group's specimen, and a group of none without one", async () => {
      const patient = newPatient();
      const groups = [groupOf(0, 'm-3', true, [5.9]), groupOf(0, 'm-3', true, [6.1, 6.7], 'interstitial fluid'), groupOf(0, 'm-3.g', true, [106], 'capillary; 100%')];
      const kept = { patientId: patient, codeId: 4, day: '2025-06-01', readings: 4, groups };
      expect(await summaryStore().keep(kept, 'from-more-readings')).toBe(true);
      expect(await summaryStore().day(patient, 4, '2025-06-01')).toEqual(kept);
      const [day] = await summaryStore().days(patient, 4, { from: '2025-06-01', to: '2025-06-01' }, false);
      expect(day!.groups.map((g) => g.specimen)).toEqual([undefined, 'interstitial fluid', 'capillary; 100%']);
      expect(day!.groups[0]).not.toHaveProperty('specimen');
    });

    it('leaves out a histogram past the bound, keeping the figures', async () => {
      const patient = newPatient();
      const many = Array.from({ length: Math.ceil(HISTOGRAM_BUDGET / 8) + 10 }, (_, i) => 1000 + i / 1000);
      const kept = { patientId: patient, codeId: 4, day: '2025-06-01', readings: many.length, groups: [heartRates(many), groupOf(1, 'K', true, [310, 311])] };
      await summaryStore().keep(kept, 'from-more-readings');
      const back = (await summaryStore().day(patient, 4, '2025-06-01'))!;
      expect(back.groups[0]!.histogram).toBeUndefined();
      expect(back.groups[0]!.count).toBe(many.length);
      expect(back.groups[1]!.histogram).toEqual(new Map([[310, 1], [311, 1]]));
    });

    it("keeps a day's CGM digest with its summary, and reads a code's days' digests alone", async () => {
      const patient = newPatient();
      const start = Date.UTC(2025, 5, 1);
      const readings: CgmReading[] = Array.from({ length: 288 }, (_, i) => ({ at: start + i * 300_000, offsetMinutes: -420, mgdl: 60 + ((i * 37) % 200) + 0.25 }));
      const sensor = { ...summary(patient, '2025-06-01', [1, 2]), cgm: digestOf(readings) };
      const none = { ...summary(patient, '2025-06-02', [1]), cgm: digestOf([]) };
      const before = summary(patient, '2025-06-03', [1]);
      for (const s of [sensor, none, before]) expect(await summaryStore().keep(s, 'from-more-readings')).toBe(true);
      expect(await summaryStore().day(patient, 4, '2025-06-01')).toEqual(sensor);
      expect(await summaryStore().digests(patient, 4, { from: '2025-06-01', to: '2025-06-30' })).toEqual([
        { day: '2025-06-01', digest: sensor.cgm },
        { day: '2025-06-02', digest: none.cgm },
        { day: '2025-06-03', digest: undefined },
      ]);
      expect(await summaryStore().digests(patient, 9, { from: '2025-06-01', to: '2025-06-30' })).toEqual([]);
      // The figures alone: the digests without their profiles, the rest as they are.
      const figures = await summaryStore().figures(patient, 4, { from: '2025-06-01', to: '2025-06-30' });
      expect(figures).toEqual([
        { day: '2025-06-01', digest: figuresOf(sensor.cgm) },
        { day: '2025-06-02', digest: figuresOf(none.cgm) },
        { day: '2025-06-03', digest: undefined },
      ]);
      expect(figures[0]!.digest).not.toHaveProperty('profile');
      expect((figures[0]!.digest as CgmFigures).count).toBe(288);
      // The statistics' reads leave them out; a digest of another version reads as none (recomputed from the readings).
      expect((await summaryStore().days(patient, 4, { from: '2025-06-01', to: '2025-06-01' }, true))[0]!.cgm).toBeUndefined();
      await summaryStore().keep({ ...summary(patient, '2025-06-04', [1]), cgm: { ...digestOf(readings), version: (DIGEST_VERSION + 1) as typeof DIGEST_VERSION } }, 'from-more-readings');
      expect(await summaryStore().digests(patient, 4, { from: '2025-06-04', to: '2025-06-04' })).toEqual([{ day: '2025-06-04', digest: undefined }]);
    });

    it("keeps hours' digests beside a day, each under the rule by its count, read by hour with or without profile", async () => {
      const patient = newPatient();
      const start = Date.UTC(2025, 5, 1);
      const at = (hour: number, n: number): CgmReading[] => Array.from({ length: n }, (_, i) => ({ at: start + hour * 3_600_000 + i * 300_000, offsetMinutes: 60, mgdl: 90 + i }));
      const [three, five, fewer] = [digestOf(at(3, 12)), digestOf(at(5, 7)), digestOf(at(3, 11))];
      const day = { ...summary(patient, '2025-06-01', [1]), cgmHours: Array.from({ length: 24 }, (_, h) => (h === 3 ? 12 : h === 5 ? 7 : 0)) };
      expect(await summaryStore().keep(day, 'from-more-readings', [{ hour: 3, digest: three }, { hour: 5, digest: five }])).toBe(true);
      expect((await summaryStore().day(patient, 4, '2025-06-01'))!.cgmHours).toEqual(day.cgmHours);
      const byHour = (kept: Array<{ hour: string }>) => [...kept].sort((a, b) => (a.hour < b.hour ? -1 : 1));
      expect(byHour(await summaryStore().hours(patient, 4, ['2025-06-01T03', '2025-06-01T04', '2025-06-01T05'], true))).toEqual([
        { hour: '2025-06-01T03', digest: three },
        { hour: '2025-06-01T05', digest: five },
      ]);
      expect(await summaryStore().hours(patient, 4, ['2025-06-01T05'], false)).toEqual([{ hour: '2025-06-01T05', digest: figuresOf(five) }]);
      expect(await summaryStore().hours(patient, 9, ['2025-06-01T05'], false)).toEqual([]);
      expect((await summaryStore().figures(patient, 4, { from: '2025-06-01', to: '2025-06-01' }))[0]!.hours).toEqual(day.cgmHours);
      // An hour of fewer readings never replaces one of more.
      await summaryStore().keep({ ...day, readings: 2 }, 'from-more-readings', [{ hour: 3, digest: fewer }]);
      expect(await summaryStore().hours(patient, 4, ['2025-06-01T03'], true)).toEqual([{ hour: '2025-06-01T03', digest: three }]);
      expect(await summaryStore().deletePatient(patient)).toBe(1);
      expect(await summaryStore().hours(patient, 4, ['2025-06-01T03', '2025-06-01T05'], true)).toEqual([]);
    });

    it('keeps the digest of every day of minute readings, and leaves out one past the bound', async () => {
      const patient = newPatient();
      const start = Date.UTC(2025, 6, 1);
      // 1,440 readings, no two values alike, 400 gaps of different lengths (as many as a day has room for, and then some).
      let at = start;
      const minutes: CgmReading[] = Array.from({ length: 1440 }, (_, i) => {
        const reading = { at, offsetMinutes: -570, mgdl: 1000 + i + 0.25 };
        at += (i < 400 ? i + 1 : 5) * 1000;
        return reading;
      });
      const full = { ...summary(patient, '2025-07-01', [1]), readings: 1440, cgm: digestOf(minutes) };
      expect(JSON.stringify(full.cgm).length).toBeLessThanOrEqual(DIGEST_BUDGET);
      await summaryStore().keep(full, 'from-more-readings');
      expect((await summaryStore().day(patient, 4, '2025-07-01'))!.cgm).toEqual(full.cgm);
      // 6,000 readings of a day, no two alike: past the bound. The rest of the summary is kept, and the day still orders by its readings.
      const seconds: CgmReading[] = Array.from({ length: 6000 }, (_, i) => ({ at: start + 86_400_000 + i * 14_000, offsetMinutes: 0, mgdl: 1000 + i }));
      const past = { ...summary(patient, '2025-07-02', [1]), readings: 6000, cgm: digestOf(seconds) };
      expect(JSON.stringify(past.cgm).length).toBeGreaterThan(DIGEST_BUDGET);
      expect(await summaryStore().keep(past, 'from-more-readings')).toBe(true);
      expect(await summaryStore().day(patient, 4, '2025-07-02')).toEqual({ ...past, cgm: DIGEST_NOT_KEPT });
      expect(await summaryStore().digests(patient, 4, { from: '2025-07-02', to: '2025-07-02' })).toEqual([{ day: '2025-07-02', digest: DIGEST_NOT_KEPT }]);
      expect(await summaryStore().figures(patient, 4, { from: '2025-07-02', to: '2025-07-02' })).toEqual([{ day: '2025-07-02', digest: DIGEST_NOT_KEPT }]);
      expect(await summaryStore().keep({ ...past, readings: 5999 }, 'from-more-readings')).toBe(false);
    });

    it("deletes a patient's summaries, and only theirs", async () => {
      const [patient, other] = [newPatient(), newPatient()];
      await summaryStore().keep(summary(patient, '2025-06-01', [1]), 'from-more-readings');
      await summaryStore().keep(summary(patient, '2025-06-02', [1], 9), 'from-more-readings');
      await summaryStore().keep(summary(other, '2025-06-01', [1]), 'from-more-readings');
      expect(await summaryStore().deletePatient(patient)).toBe(2);
      expect(await summaryStore().day(patient, 4, '2025-06-01')).toBeUndefined();
      expect(await summaryStore().day(other, 4, '2025-06-01')).toBeDefined();
      expect(await summaryStore().deletePatient(patient)).toBe(0);
    });
  });
}
