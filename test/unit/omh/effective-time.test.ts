import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { daysInMonth, isoInstant } from '../../../shared/omh/datetime';
import {
  effectiveTimeProblem, fhirEffective, liftEffectiveTime, startOffsetOf, type EffectiveTime, type FhirEffective,
} from '../../../shared/omh/effective-time';

const lift = (effective_time_frame: unknown) => liftEffectiveTime({ effective_time_frame });
const rendered = (frame: unknown) => fhirEffective(lift(frame));
const interval = (time_interval: unknown) => ({ time_interval });
const startPlus = (start: string, value: number, unit: string) =>
  rendered(interval({ start_date_time: start, duration: { value, unit } }));
const endMinus = (end: string, value: number, unit: string) =>
  rendered(interval({ end_date_time: end, duration: { value, unit } }));
const periodOf = (effective: FhirEffective) => ('effectivePeriod' in effective ? effective.effectivePeriod : undefined);

describe('liftEffectiveTime', () => {
  it('date_time: one instant, offsets honoured, rendered in UTC', () => {
    expect(lift({ date_time: '2025-03-01T07:58:00-05:00' })).toEqual({
      kind: 'dateTime',
      start: Date.UTC(2025, 2, 1, 12, 58),
      end: Date.UTC(2025, 2, 1, 12, 58),
    });
    expect(rendered({ date_time: '2025-03-01T21:15:00+01:00' })).toEqual({ effectiveDateTime: '2025-03-01T20:15:00Z' });
    expect(rendered({ date_time: '2025-03-01T21:15:00.250+01:00' })).toEqual({ effectiveDateTime: '2025-03-01T20:15:00.250Z' });
  });

  it('start + end', () => {
    expect(rendered(interval({ start_date_time: '2025-03-02T23:10:00-08:00', end_date_time: '2025-03-03T06:40:00-08:00' }))).toEqual({
      effectivePeriod: { start: '2025-03-03T07:10:00Z', end: '2025-03-03T14:40:00Z' },
    });
  });

  it('start + duration and end + duration, every fixed unit', () => {
    const start = '2025-03-02T01:00:00Z';
    const cases: Array<[number, string, string]> = [
      [6, 'h', '2025-03-02T07:00:00Z'],
      [90, 'min', '2025-03-02T02:30:00Z'],
      [45, 'sec', '2025-03-02T01:00:45Z'],
      [250, 'ms', '2025-03-02T01:00:00.250Z'],
      [1_500_000, 'us', '2025-03-02T01:00:01.500Z'],
      [2_000_000_000, 'ns', '2025-03-02T01:00:02Z'],
      [3_000_000_000_000, 'ps', '2025-03-02T01:00:03Z'],
      [2, 'd', '2025-03-04T01:00:00Z'],
      [1, 'wk', '2025-03-09T01:00:00Z'],
    ];
    for (const [value, unit, end] of cases) {
      expect(startPlus(start, value, unit)).toEqual({ effectivePeriod: { start, end } });
      expect(endMinus(end, value, unit)).toEqual({ effectivePeriod: { start, end } });
    }
  });

  it('fractional fixed units, applied as whole milliseconds', () => {
    expect(startPlus('2025-03-02T01:00:00Z', 7.5, 'h')).toEqual({
      effectivePeriod: { start: '2025-03-02T01:00:00Z', end: '2025-03-02T08:30:00Z' },
    });
    expect(endMinus('2025-03-03T06:40:00-08:00', 7.5, 'h')).toEqual({
      effectivePeriod: { start: '2025-03-03T07:10:00Z', end: '2025-03-03T14:40:00Z' },
    });
    expect(periodOf(startPlus('2025-03-02T01:00:00Z', 0.1, 'h'))?.end).toBe('2025-03-02T01:06:00Z');
    expect(periodOf(startPlus('2025-03-02T01:00:00Z', 1.0006, 'ms'))?.end).toBe('2025-03-02T01:00:00.001Z');
    expect(periodOf(startPlus('2025-03-02T01:00:00Z', 0.4, 'us'))?.end).toBe('2025-03-02T01:00:00Z');
  });

  it('Mo and yr: calendar arithmetic, value truncated, day clamped to the month end', () => {
    const cases: Array<[string, number, string, string]> = [
      ['2025-01-31T10:00:00Z', 1, 'Mo', '2025-02-28T10:00:00Z'],
      ['2024-01-31T10:00:00Z', 1, 'Mo', '2024-02-29T10:00:00Z'],
      ['2025-03-31T10:00:00Z', 1, 'Mo', '2025-04-30T10:00:00Z'],
      ['2025-01-15T10:00:00Z', 1.9, 'Mo', '2025-02-15T10:00:00Z'],
      ['2025-11-30T10:00:00Z', 3, 'Mo', '2026-02-28T10:00:00Z'],
      ['2025-01-31T10:00:00Z', 13, 'Mo', '2026-02-28T10:00:00Z'],
      ['2024-02-29T10:00:00Z', 1, 'yr', '2025-02-28T10:00:00Z'],
      ['2024-02-29T10:00:00Z', 4, 'yr', '2028-02-29T10:00:00Z'],
      ['2023-02-28T10:00:00Z', 1.7, 'yr', '2024-02-28T10:00:00Z'],
      ['2025-03-01T00:00:00Z', 0.5, 'Mo', '2025-03-01T00:00:00Z'],
    ];
    for (const [start, value, unit, end] of cases) {
      expect(startPlus(start, value, unit), `${start} + ${value} ${unit}`).toEqual({ effectivePeriod: { start, end } });
    }
    expect(endMinus('2025-03-31T10:00:00Z', 1, 'Mo')).toEqual({
      effectivePeriod: { start: '2025-02-28T10:00:00Z', end: '2025-03-31T10:00:00Z' },
    });
    expect(periodOf(endMinus('2025-02-28T10:00:00Z', 1, 'yr'))?.start).toBe('2024-02-28T10:00:00Z');
  });

  it('Mo moves the calendar of the writer\'s own offset', () => {
    // 2025-01-30T22:00-05:00 is Jan 31 in UTC; one month later on the writer's calendar is Feb 28 22:00-05:00.
    expect(startPlus('2025-01-30T22:00:00-05:00', 1, 'Mo')).toEqual({
      effectivePeriod: { start: '2025-01-31T03:00:00Z', end: '2025-03-01T03:00:00Z' },
    });
    expect(startPlus('2025-01-31T23:30:00+02:00', 1, 'Mo')).toEqual({
      effectivePeriod: { start: '2025-01-31T21:30:00Z', end: '2025-02-28T21:30:00Z' },
    });
  });

  it.each([
    ['night', '2025-03-02T00:00:00Z', '2025-03-02T06:00:00Z'],
    ['morning', '2025-03-02T06:00:00Z', '2025-03-02T12:00:00Z'],
    ['afternoon', '2025-03-02T12:00:00Z', '2025-03-02T18:00:00Z'],
    ['evening', '2025-03-02T18:00:00Z', '2025-03-03T00:00:00Z'],
  ])('date + part_of_day %s: the UTC window', (part_of_day, start, end) => {
    expect(rendered(interval({ date: '2025-03-02', part_of_day }))).toEqual({ effectivePeriod: { start, end } });
  });

  it('evening of the last day of a leap February ends at March 1', () => {
    expect(rendered(interval({ date: '2024-02-29', part_of_day: 'evening' }))).toEqual({
      effectivePeriod: { start: '2024-02-29T18:00:00Z', end: '2024-03-01T00:00:00Z' },
    });
  });

  it('full_date (food entry): the whole UTC day', () => {
    expect(rendered({ full_date: '2025-03-04' })).toEqual({
      effectivePeriod: { start: '2025-03-04T00:00:00Z', end: '2025-03-05T00:00:00Z' },
    });
  });

  it('tries the forms in order: date_time wins, start + end before durations', () => {
    expect(lift({ date_time: '2025-03-01T00:00:00Z', time_interval: { date: '2025-03-02', part_of_day: 'night' } })?.kind).toBe('dateTime');
    expect(lift({ date_time: 'yesterday', time_interval: { date: '2025-03-02', part_of_day: 'night' } })).toBeUndefined();
    const all = { start_date_time: '2025-03-02T01:00:00Z', end_date_time: '2025-03-02T02:00:00Z', duration: { value: 5, unit: 'h' } };
    expect(rendered(interval(all))).toEqual({ effectivePeriod: { start: '2025-03-02T01:00:00Z', end: '2025-03-02T02:00:00Z' } });
    const badEnd = { start_date_time: '2025-03-02T01:00:00Z', end_date_time: 'later', duration: { value: 5, unit: 'h' } };
    expect(rendered(interval(badEnd))).toEqual({ effectivePeriod: { start: '2025-03-02T01:00:00Z', end: '2025-03-02T06:00:00Z' } });
  });

  it.each([
    undefined,
    null,
    'x',
    {},
    { date_time: '2025-03-01T10:00:00' },
    { date_time: '2025-02-30T10:00:00Z' },
    { date_time: 1740823200000 },
    { time_interval: {} },
    { time_interval: { start_date_time: '2025-03-01T10:00:00Z' } },
    { time_interval: { start_date_time: '2025-03-01T10:00:00Z', duration: { value: 1, unit: 'hours' } } },
    { time_interval: { start_date_time: '2025-03-01T10:00:00Z', duration: { value: '1', unit: 'h' } } },
    { time_interval: { start_date_time: '2025-03-01T10:00:00Z', duration: { value: 1, unit: 'constructor' } } },
    { time_interval: { date: '2025-03-02', part_of_day: 'noon' } },
    { time_interval: { date: '2025-03-02', part_of_day: 'toString' } },
    { time_interval: { date: '2025-02-30', part_of_day: 'night' } },
    { full_date: '2025-02-30' },
  ])('lifts nothing from %j', (frame) => {
    expect(lift(frame)).toBeUndefined();
    expect(rendered(frame)).toEqual({});
  });

  it('lifts nothing from a body without a time frame, or from no body', () => {
    expect(liftEffectiveTime({ rr_interval: { value: 845, unit: 'ms' } })).toBeUndefined();
    expect(liftEffectiveTime(null)).toBeUndefined();
  });
});

describe('effectiveTimeProblem', () => {
  const period = (start: number, end: number): EffectiveTime => ({ kind: 'period', start, end });

  it('accepts zero-length and ordinary periods', () => {
    expect(effectiveTimeProblem(period(0, 0))).toBeUndefined();
    expect(effectiveTimeProblem(lift({ date_time: '0001-01-01T00:00:00Z' })!)).toBeUndefined();
    expect(effectiveTimeProblem(lift({ date_time: '9999-12-31T23:59:59.999Z' })!)).toBeUndefined();
  });

  it('names a period that ends before it starts', () => {
    expect(effectiveTimeProblem(lift(interval({ start_date_time: '2025-03-02T02:00:00Z', end_date_time: '2025-03-02T01:00:00Z' }))!)).toBe(
      'ends (2025-03-02T01:00:00Z) before it starts (2025-03-02T02:00:00Z)',
    );
    expect(effectiveTimeProblem(lift(interval({ start_date_time: '2025-03-02T02:00:00Z', duration: { value: -1, unit: 'h' } }))!)).toMatch(/ends/);
  });

  it('names instants FHIR cannot write', () => {
    expect(effectiveTimeProblem(lift({ date_time: '0000-12-31T23:59:59Z' })!)).toMatch(/0001-9999/);
    expect(effectiveTimeProblem(lift(interval({ start_date_time: '9999-12-31T00:00:00Z', duration: { value: 1, unit: 'd' } }))!)).toMatch(/0001-9999/);
    expect(effectiveTimeProblem(lift(interval({ start_date_time: '2025-01-01T00:00:00Z', duration: { value: 1e300, unit: 'yr' } }))!)).toMatch(/0001-9999/);
    expect(effectiveTimeProblem(lift(interval({ start_date_time: '2025-01-01T00:00:00Z', duration: { value: 1e300, unit: 'h' } }))!)).toMatch(/0001-9999/);
  });
});

describe('properties', () => {
  const FIXED = ['ps', 'ns', 'us', 'ms', 'sec', 'min', 'h', 'd', 'wk'] as const;
  const instants = fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2100, 0, 1) });
  const offsets = fc.integer({ min: -14 * 60, max: 14 * 60 });

  /** An RFC 3339 text of `ms` written at `offsetMinutes`. */
  const written = (ms: number, offsetMinutes: number) => {
    const local = isoInstant(ms + offsetMinutes * 60_000).replace(/Z$/, '');
    const sign = offsetMinutes < 0 ? '-' : '+';
    const abs = Math.abs(offsetMinutes);
    const hhmm = `${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
    return `${local}${sign}${hhmm}`;
  };

  it('any offset lifts to the same instant', () => {
    fc.assert(
      fc.property(instants, offsets, (ms, offset) => {
        expect(lift({ date_time: written(ms, offset) })?.start).toBe(ms);
      }),
    );
  });

  it('fixed units: start + duration, then end - duration, returns to the start', () => {
    fc.assert(
      fc.property(instants, fc.double({ min: 0, max: 1e4, noNaN: true }), fc.constantFrom(...FIXED), (ms, value, unit) => {
        const forward = lift(interval({ start_date_time: isoInstant(ms), duration: { value, unit } }))!;
        const back = lift(interval({ end_date_time: isoInstant(forward.end), duration: { value, unit } }))!;
        expect(back).toEqual(forward);
      }),
    );
  });

  it('non-negative durations never lift a start after the end', () => {
    const units = fc.constantFrom(...FIXED, 'Mo', 'yr');
    fc.assert(
      fc.property(instants, offsets, fc.double({ min: 0, max: 500, noNaN: true }), units, fc.boolean(), (ms, offset, value, unit, fromEnd) => {
        const anchor = written(ms, offset);
        const time = fromEnd ? { end_date_time: anchor } : { start_date_time: anchor };
        const lifted = lift(interval({ ...time, duration: { value, unit } }))!;
        expect(lifted.start).toBeLessThanOrEqual(lifted.end);
        expect(effectiveTimeProblem(lifted)).toBeUndefined();
      }),
    );
  });

  it('Mo and yr land in the intended month, never overflowing into the next', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1900, max: 2100 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 31 }),
        fc.integer({ min: -600, max: 600 }),
        fc.constantFrom('Mo', 'yr'),
        (year, month, dayWish, count, unit) => {
          const day = Math.min(dayWish, daysInMonth(year, month));
          const start = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}T12:34:56Z`;
          const lifted = lift(interval({ start_date_time: start, duration: { value: Math.abs(count), unit } }))!;
          const months = Math.abs(count) * (unit === 'yr' ? 12 : 1);
          const index = year * 12 + (month - 1) + months;
          const end = new Date(lifted.end);
          expect(end.getUTCFullYear() * 12 + end.getUTCMonth()).toBe(index);
          expect(end.getUTCDate()).toBe(Math.min(day, daysInMonth(Math.floor(index / 12), (index % 12) + 1)));
          expect(isoInstant(lifted.end).slice(10)).toBe('T12:34:56Z');
        },
      ),
    );
  });

  it('part_of_day windows tile the day: six hours each, back to back', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2100, 0, 1) }), (ms) => {
        const date = isoInstant(ms).slice(0, 10);
        const windows = ['night', 'morning', 'afternoon', 'evening'].map((part_of_day) => lift(interval({ date, part_of_day }))!);
        expect(windows[0]!.start).toBe(Date.parse(`${date}T00:00:00Z`));
        windows.forEach((w, i) => {
          expect(w.end - w.start).toBe(6 * 3_600_000);
          if (i > 0) expect(w.start).toBe(windows[i - 1]!.end);
        });
      }),
    );
  });
});

describe('startOffsetOf', () => {
  const offset = (effective_time_frame: unknown) => startOffsetOf({ effective_time_frame });
  it("is the offset of the clock the start was written on", () => {
    expect(offset({ date_time: '2026-03-08T01:55:00-08:00' })).toBe(-480);
    expect(offset({ date_time: '2026-03-08T03:00:00-07:00' })).toBe(-420);
    expect(offset({ date_time: '2026-03-08T03:00:00+05:45' })).toBe(345);
    expect(offset({ date_time: '2026-03-08T03:00:00Z' })).toBe(0);
    expect(offset(interval({ start_date_time: '2025-03-02T23:10:00+01:00', end_date_time: '2025-03-03T06:40:00+02:00' }))).toBe(60);
    expect(offset(interval({ start_date_time: '2025-03-02T23:10:00-03:30', duration: { value: 5, unit: 'min' } }))).toBe(-210);
    // An end and a duration: the writer's clock is the end's.
    expect(offset(interval({ end_date_time: '2025-03-02T23:10:00+09:00', duration: { value: 5, unit: 'min' } }))).toBe(540);
  });
  it('is UTC for the UTC windows of a date, and undefined without an effective time', () => {
    expect(offset(interval({ date: '2025-03-02', part_of_day: 'night' }))).toBe(0);
    expect(offset({ full_date: '2025-03-02' })).toBe(0);
    expect(offset({ date_time: 'yesterday' })).toBeUndefined();
    expect(startOffsetOf({})).toBeUndefined();
    expect(startOffsetOf(undefined)).toBeUndefined();
  });
});

describe('isoInstant', () => {
  /** What it must write: the Date's own text, without `.000`. */
  const plain = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');

  it('writes any instant as the Date does, in time order and out of it', () => {
    const instants = fc.integer({ min: -8.64e15, max: 8.64e15 });
    // Runs within a day (the date is written once a day), then jumps anywhere.
    fc.assert(
      fc.property(instants, fc.array(fc.integer({ min: -86_400_000, max: 86_400_000 }), { maxLength: 20 }), (start, steps) => {
        let ms = start;
        for (const step of steps) {
          ms = Math.max(-8.64e15, Math.min(8.64e15, ms + step));
          expect(isoInstant(ms)).toBe(plain(ms));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('writes each edge of a day, before 1970, past 9999 and a fraction of a millisecond as the Date does', () => {
    for (const ms of [0, -1, 86_399_999, 86_400_000, -86_400_000, -86_400_001, Date.UTC(2024, 1, 29, 23, 59, 59, 999), Date.UTC(10000, 0, 1), Date.UTC(-1, 11, 31, 12), 8.64e15, -8.64e15]) {
      expect(isoInstant(ms)).toBe(plain(ms));
    }
    expect(isoInstant(1.5)).toBe(plain(1.5));
    expect(isoInstant(-1.5)).toBe(plain(-1.5));
    expect(isoInstant(Date.UTC(2025, 2, 1, 12, 58))).toBe('2025-03-01T12:58:00Z');
    expect(isoInstant(Date.UTC(2025, 2, 1, 12, 58, 0, 250))).toBe('2025-03-01T12:58:00.250Z');
  });
});
