/**
 * THE readings of a period (shared/observations/period.ts): a dated reading belongs to a period
 * when its effective start lies in `[from, to)`, however long it lasts; an undated one only to the
 * whole history; each end given as a FHIR date covers its whole precision.
 */
import { describe, expect, it } from 'vitest';
import { DomainFailure } from '../../../shared/failures';
import type { EffectiveTime } from '../../../shared/omh/effective-time';
import { FIRST_INSTANT, LAST_INSTANT } from '../../../shared/omh/datetime';
import { inPeriod, isBounded, periodOfDates, startBoundsOf, storeTimeRange, wholeDaysOf, WHOLE_HISTORY } from '../../../shared/observations/period';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const JAN_5 = Date.UTC(2026, 0, 5);
const JAN_8 = Date.UTC(2026, 0, 8);

const instant = (start: number): { effective: EffectiveTime } => ({ effective: { kind: 'dateTime', start, end: start } });
const lasting = (start: number, end: number): { effective: EffectiveTime } => ({ effective: { kind: 'period', start, end } });
const undated = { effective: undefined };

describe('periodOfDates', () => {
  it('covers each end whole: from its first instant, to its last', () => {
    expect(periodOfDates('2026-01-05', '2026-01-07')).toEqual({ from: JAN_5, to: JAN_8 });
    expect(periodOfDates('2026-01', '2026')).toEqual({ from: Date.UTC(2026, 0, 1), to: Date.UTC(2027, 0, 1) });
    expect(periodOfDates('2026-01-05T08:00:00Z', '2026-01-05T09:30:00.250+01:00')).toEqual({ from: JAN_5 + 8 * HOUR, to: JAN_5 + 8 * HOUR + 30 * 60_000 + 251 });
  });

  it('leaves an end open when it is not given; neither: the whole history', () => {
    expect(periodOfDates('2026-01-05', undefined)).toEqual({ from: JAN_5 });
    expect(periodOfDates(undefined, '2026-01-07')).toEqual({ to: JAN_8 });
    expect(periodOfDates(undefined, undefined)).toEqual(WHOLE_HISTORY);
    expect(isBounded(WHOLE_HISTORY)).toBe(false);
    expect(isBounded({ to: JAN_8 })).toBe(true);
  });

  it('refuses a text that is no date as a failure of the query, naming it as the caller did', () => {
    const failure = (() => {
      try {
        periodOfDates('2026-13-45', undefined, { from: 'start', to: 'end' });
      } catch (e) {
        return e;
      }
    })();
    expect(failure).toBeInstanceOf(DomainFailure);
    expect(failure).toMatchObject({ kind: 'invalid-query', at: 'start', message: expect.stringContaining('2026-13-45') });
  });
});

describe('inPeriod', () => {
  const period = { from: JAN_5, to: JAN_8 };

  it('takes the instants at the edges as half-open: from in, to out, the last millisecond in', () => {
    expect(inPeriod(instant(JAN_5), period)).toBe(true);
    expect(inPeriod(instant(JAN_5 - 1), period)).toBe(false);
    expect(inPeriod(instant(JAN_8 - 1), period)).toBe(true);
    expect(inPeriod(instant(JAN_8), period)).toBe(false);
  });

  it('places a reading across midnight by its start: in the day it began, not the next', () => {
    const night = lasting(JAN_5 + 23 * HOUR, JAN_5 + 31 * HOUR);
    expect(inPeriod(night, { from: JAN_5, to: JAN_5 + DAY })).toBe(true);
    expect(inPeriod(night, { from: JAN_5 + DAY, to: JAN_5 + 2 * DAY })).toBe(false);
  });

  it("leaves out a reading that began before the period, however far into it it lasts; keeps one that began in it, however far past its end", () => {
    expect(inPeriod(lasting(JAN_5 - HOUR, JAN_8 + DAY), period)).toBe(false);
    expect(inPeriod(lasting(JAN_8 - HOUR, JAN_8 + DAY), period)).toBe(true);
  });

  it('holds an undated reading only in the whole history', () => {
    expect(inPeriod(undated, WHOLE_HISTORY)).toBe(true);
    expect(inPeriod(undated, { from: JAN_5 })).toBe(false);
    expect(inPeriod(undated, { to: JAN_8 })).toBe(false);
    expect(inPeriod(instant(FIRST_INSTANT), WHOLE_HISTORY)).toBe(true);
  });

  it('periods that follow one another share no reading', () => {
    const days = [0, 1, 2].map((d) => ({ from: JAN_5 + d * DAY, to: JAN_5 + (d + 1) * DAY }));
    const readings = [instant(JAN_5), lasting(JAN_5 + 23 * HOUR, JAN_5 + 26 * HOUR), instant(JAN_5 + DAY), instant(JAN_8 - 1), lasting(JAN_8 - HOUR, JAN_8 + HOUR)];
    for (const reading of readings) expect(days.filter((day) => inPeriod(reading, day))).toHaveLength(1);
  });
});

describe('the store bounds of a period', () => {
  it('reads the starts in [from, to) as inclusive milliseconds', () => {
    expect(storeTimeRange(startBoundsOf({ from: JAN_5, to: JAN_8 }))).toEqual({ from: JAN_5, to: JAN_8 - 1 });
    expect(storeTimeRange(startBoundsOf({ from: JAN_5 }))).toEqual({ from: JAN_5 });
    expect(storeTimeRange(startBoundsOf(WHOLE_HISTORY))).toEqual({});
  });

  it('reads nothing of an empty period, and clamps to the instants a reading can have', () => {
    expect(storeTimeRange(startBoundsOf({ from: JAN_8, to: JAN_5 }))).toBeUndefined();
    expect(storeTimeRange(startBoundsOf({ from: JAN_5, to: JAN_5 }))).toBeUndefined();
    expect(storeTimeRange({ hi: FIRST_INSTANT })).toBeUndefined();
    expect(storeTimeRange({ lo: -8.64e15, hi: 8.64e15 })).toEqual({ from: FIRST_INSTANT, to: LAST_INSTANT });
  });

  it('takes the whole UTC days inside the period from the summaries, the cut days at its edges from the rows', () => {
    expect(wholeDaysOf(startBoundsOf({ from: JAN_5, to: JAN_8 }))).toEqual({ start: JAN_5, end: JAN_8 });
    expect(wholeDaysOf(startBoundsOf({ from: JAN_5 + HOUR, to: JAN_8 - HOUR }))).toEqual({ start: JAN_5 + DAY, end: JAN_8 - DAY });
    const within = wholeDaysOf(startBoundsOf({ from: JAN_5 + HOUR, to: JAN_5 + 2 * HOUR }));
    expect(within.start).toBeGreaterThanOrEqual(within.end);
  });
});
