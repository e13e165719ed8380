/**
 * THE contract of counting from the day summaries (shared/observations/search/summary-days.ts), run
 * against every pair of adapters of the observation and summary stores: a patient's readings of a
 * code counted as `_summary=count` counts them (the search's count) and by code (`countByCode`),
 * whole days from the summaries and the rest from the rows, always equal to a plain count over the
 * rows with the search's own row test; and the readings of a period (shared/observations/period.ts)
 * as an assistant's `count_readings` counts them (`countReadingsByCode`), equal to a plain count of
 * the rows the period holds: random readings (instants, periods across midnight, undated, entered
 * in error), written in batches with re-posts, under every kind of date filter (those the summaries
 * answer and those they cannot) and periods; whole days are the summaries' own figure; a purge
 * leaves nothing counted. Each test makes its own patients.
 */
import { randomInt, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Caller } from '../../shared/auth/caller';
import type { Code } from '../../shared/directory/model';
import { deletePatientObservations } from '../../shared/observations/delete';
import type { NewObservation, StoredObservation } from '../../shared/observations/model';
import { inPeriod, periodOfDates } from '../../shared/observations/period';
import { readReadings } from '../../shared/observations/read';
import { countReadingsByCode } from '../../shared/observations/series';
import { countByCode, searchObservations } from '../../shared/observations/search/execute';
import { rowTest } from '../../shared/observations/search/filters';
import { parseNativeQuery } from '../../shared/observations/search/query';
import { useObservationStore } from '../../shared/observations/store/current';
import type { ObservationStore, PageStart } from '../../shared/observations/store/port';
import { summaryStore, useSummaryStore } from '../../shared/observations/store/summary-current';
import type { SummaryStore } from '../../shared/observations/store/summary-port';
import { storeObservations } from '../../shared/observations/write';
import { code } from '../support/directory';

export type CountAdapters = [name: string, make: () => { observations: ObservationStore; summaries: SummaryStore }];

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 2025-06-01: the readings lie on its day and the four after it. */
const T0 = Date.UTC(2025, 5, 1);
const newPatient = () => 600_000_000 + randomInt(100_000_000);
const asPatient = (patientId: number): Caller => ({ kind: 'patient', userId: patientId, patientId, scopes: [] });

/** Date filters: those whose whole days the summaries answer, and those they cannot (eq, ne, alternatives). */
const DATE_FILTERS: ReadonlyArray<readonly string[]> = [
  [],
  ['ge2025-06-02'],
  ['le2025-06-03'],
  ['ge2025-06-02', 'le2025-06-04'],
  ['gt2025-06-01', 'lt2025-06-04'],
  ['ge2025-06-02T10:30:00Z', 'le2025-06-04T06:00:00Z'],
  ['sa2025-06-01', 'le2025-06-05'],
  ['ge2025-06-01T00:00:00Z'],
  ['eq2025-06-02'],
  ['ne2025-06-02'],
  ['ge2025-06-04,le2025-06-01'],
  ['eb2025-06-03'],
  ['ap2025-06-03'],
];

/** Periods (`from`, `to`): open, half open, whole days, cut days, one that ends before it starts. */
const PERIODS: ReadonlyArray<readonly [string | undefined, string | undefined]> = [
  [undefined, undefined],
  ['2025-06-02', undefined],
  [undefined, '2025-06-03'],
  ['2025-06-02', '2025-06-04'],
  ['2025-06-02T10:30:00Z', '2025-06-04T06:00:00Z'],
  ['2025-06-01T23:00:00Z', '2025-06-02T01:00:00Z'],
  ['2025-06-04', '2025-06-01'],
];

interface ReadingSpec {
  at: number | undefined;
  minute: number;
  hours: number;
  enteredInError: boolean;
  value: number;
}

const reading: fc.Arbitrary<ReadingSpec> = fc.record({
  /** Hours after T0 (five days), or undated. */
  at: fc.option(fc.integer({ min: 0, max: 5 * 24 - 1 }), { nil: undefined, freq: 6 }),
  minute: fc.integer({ min: 0, max: 59 }),
  /** Length in hours of a period (0: an instant); up to a day and a half, across midnights. */
  hours: fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 1, max: 36 })),
  enteredInError: fc.boolean(),
  value: fc.integer({ min: 40, max: 180 }),
});

export function summaryCountsContract(adapters: readonly CountAdapters[]): void {
  describe.each(adapters)('counts from the day summaries: %s', (_name, make) => {
    let heartRate: Code;
    let previous: { observations: ObservationStore; summaries: SummaryStore } | undefined;
    beforeAll(async () => void (heartRate = await code('omh:heart-rate:2.0')));
    beforeEach(() => {
      const { observations, summaries } = make();
      previous = { observations: useObservationStore(observations), summaries: useSummaryStore(summaries) };
    });
    afterEach(() => {
      useObservationStore(previous!.observations);
      useSummaryStore(previous!.summaries);
    });

    function newReading(patientId: number, r: ReadingSpec): NewObservation {
      const uuid = randomUUID();
      const start = r.at === undefined ? undefined : T0 + r.at * HOUR + r.minute * 60_000;
      return {
        patientId,
        codeId: heartRate.id,
        deviceId: 3,
        status: r.enteredInError ? 'entered-in-error' : 'final',
        identifiers: [],
        data: Buffer.from(`{"header":{"uuid":"${uuid}"}}`).toString('base64'),
        uuid,
        effective: start === undefined ? undefined : r.hours > 0 ? { kind: 'period', start, end: start + r.hours * HOUR } : { kind: 'dateTime', start, end: start },
        values: [{ member: 0, value: r.value }],
      };
    }

    /** Every row of the patient, dated and undated. */
    async function rowsOf(patientId: number): Promise<StoredObservation[]> {
      const rows: StoredObservation[] = [];
      let start: PageStart | undefined;
      do {
        const page = await readReadings({ patientId, order: 'effective', ascending: true, time: {}, undated: {} }, 500, start);
        rows.push(...page.readings);
        start = page.next;
      } while (start);
      return rows;
    }

    const paramsOf = (patientId: number, dates: readonly string[]) => new URLSearchParams([['patient', String(patientId)], ...dates.map((d) => ['date', d] as [string, string])]);

    /** The count of each path and the plain count over the rows, for one date filter. */
    async function counts(patientId: number, dates: readonly string[], now: number) {
      const params = paramsOf(patientId, dates);
      const coded = new URLSearchParams([...params, ['code', heartRate.code]]);
      const test = rowTest(parseNativeQuery(coded), new Map([[patientId, new Set([heartRate.id])]]), now);
      const plain = (await rowsOf(patientId)).filter(test).length;
      const counted = parseNativeQuery(new URLSearchParams([...coded, ['_summary', 'count']]));
      const search = (await searchObservations(asPatient(patientId), counted, () => undefined, now)).total;
      const [byCode] = await countByCode(asPatient(patientId), parseNativeQuery(params), [heartRate], now);
      return { plain, search, byCode };
    }

    /** The count of a period's readings as the assistants count them, and the plain count of the rows the period holds. */
    async function periodCounts(patientId: number, [from, to]: readonly [string | undefined, string | undefined], now: number) {
      const period = periodOfDates(from, to);
      const plain = (await rowsOf(patientId)).filter((o) => inPeriod(o, period)).length;
      const [byCode] = await countReadingsByCode(asPatient(patientId), { subject: { patientId }, codes: [heartRate.code], period }, now);
      return { plain, byCode };
    }

    it('counts as a plain count over the rows: random readings, re-posts, every kind of date filter', async () => {
      const now = T0 + 30 * DAY;
      await fc.assert(
        fc.asyncProperty(fc.array(reading, { minLength: 1, maxLength: 40 }), fc.array(fc.nat(), { maxLength: 8 }), fc.integer({ min: 1, max: 3 }), async (readings, reposted, batches) => {
          const patientId = newPatient();
          const inputs = readings.map((r) => newReading(patientId, r));
          const size = Math.ceil(inputs.length / batches);
          for (let i = 0; i < inputs.length; i += size) await storeObservations(inputs.slice(i, i + size));
          // A device's retries: some readings sent again (the same uuid), alone and beside new ones.
          const again = reposted.map((n) => inputs[n % inputs.length]!);
          if (again.length > 0) await storeObservations([...again, newReading(patientId, readings[0]!)]);
          for (const dates of DATE_FILTERS) {
            const { plain, search, byCode } = await counts(patientId, dates, now);
            expect({ dates, search, byCode }).toEqual({ dates, search: plain, byCode: plain });
          }
          for (const period of PERIODS) {
            const { plain, byCode } = await periodCounts(patientId, period, now);
            expect({ period, byCode }).toEqual({ period, byCode: plain });
          }
        }),
        { numRuns: 12 },
      );
    });

    it('takes whole days from the summaries and the partial days and undated readings from the rows', async () => {
      const patientId = newPatient();
      const at = (day: number, hour: number) => ({ at: day * 24 + hour, minute: 0, hours: 0, enteredInError: false, value: 60 });
      const undated = { at: undefined, minute: 0, hours: 0, enteredInError: false, value: 60 };
      await storeObservations([at(0, 23), at(1, 1), at(1, 2), at(2, 12), undated].map((r) => newReading(patientId, r)));
      const now = T0 + 30 * DAY;
      expect(await counts(patientId, [], now)).toEqual({ plain: 5, search: 5, byCode: 5 });
      // A summary says what its day holds: doctored to a thousand (as no upload would keep it), the whole day counts a thousand.
      const kept = (await summaryStore().day(patientId, heartRate.id, '2025-06-02'))!;
      expect(kept.readings).toBe(2);
      expect(await summaryStore().keep({ ...kept, readings: 1000 }, 'repair')).toBe(true);
      expect((await counts(patientId, [], now)).search).toBe(1 + 1000 + 1 + 1);
      expect((await counts(patientId, ['ge2025-06-02', 'le2025-06-02'], now)).byCode).toBe(1000);
      // A day the filter cuts is read from its rows (2 on 2025-06-02 after 00:30), never from its summary.
      expect((await counts(patientId, ['ge2025-06-02T00:30:00Z', 'le2025-06-02'], now)).search).toBe(2);
      // The undated reading is counted only without a date filter, from its row.
      expect((await counts(patientId, ['ge2025-06-01'], now)).search).toBe(1 + 1000 + 1);
      // A period's whole days from their summaries too; its cut days and the undated reading (the whole history only) from the rows.
      expect((await periodCounts(patientId, ['2025-06-02', '2025-06-02'], now)).byCode).toBe(1000);
      expect((await periodCounts(patientId, ['2025-06-01T23:00:00Z', '2025-06-02'], now)).byCode).toBe(1 + 1000);
      expect((await periodCounts(patientId, [undefined, undefined], now)).byCode).toBe(1 + 1000 + 1 + 1);
    });

    it('counts nothing of a purged patient, and a new reading of theirs afterwards once', async () => {
      const patientId = newPatient();
      const now = T0 + 30 * DAY;
      const sent = [0, 1, 30, 50].map((hour) => newReading(patientId, { at: hour, minute: 5, hours: 0, enteredInError: false, value: 70 }));
      await storeObservations(sent);
      expect(await counts(patientId, [], now)).toEqual({ plain: 4, search: 4, byCode: 4 });
      await deletePatientObservations(patientId);
      expect(await counts(patientId, [], now)).toEqual({ plain: 0, search: 0, byCode: 0 });
      expect(await counts(patientId, ['ge2025-06-01', 'le2025-06-05'], now)).toEqual({ plain: 0, search: 0, byCode: 0 });
      await storeObservations([sent[0]!]);
      expect(await counts(patientId, [], now)).toEqual({ plain: 1, search: 1, byCode: 1 });
    });
  });
}
