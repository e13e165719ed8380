/** A reading's place on its own clock, and instants written on a clock. */
import { describe, expect, it } from 'vitest';
import { binOf, dateAt, dateTimeAt, isMidnightAt, isOffset, localMinuteOfDay, quarterOf } from '../../../shared/cgm/time-of-day';

const at = (text: string) => Date.parse(text);

describe('the time of day on the reading own clock', () => {
  it('reads the instant shifted by the offset it was written with', () => {
    expect(localMinuteOfDay(at('2026-03-08T01:55:00-08:00'), -480)).toBe(115);
    expect(localMinuteOfDay(at('2026-03-08T03:00:00-07:00'), -420)).toBe(180);
    expect(localMinuteOfDay(at('2026-03-08T23:59:59+05:45'), 345)).toBe(1439);
    expect(localMinuteOfDay(at('1969-12-31T23:00:00Z'), 0)).toBe(1380);
  });

  it('puts it in a bin of 15 minutes', () => {
    expect(binOf(at('2026-03-08T01:55:00-08:00'), -480)).toBe(7);
    expect(binOf(at('2026-03-08T03:00:00-07:00'), -420)).toBe(12);
    expect(binOf(at('2026-03-08T00:14:59Z'), 0)).toBe(0);
  });

  it('knows an offset a date-time can carry', () => {
    expect([0, -480, 345, 23 * 60 + 59].every(isOffset)).toBe(true);
    expect([24 * 60, 0.5, Number.NaN].some(isOffset)).toBe(false);
  });
});

describe('instants on a clock', () => {
  it('writes date-times and dates with the clock offset', () => {
    expect(dateTimeAt(at('2026-03-01T08:00:00Z'), -480)).toBe('2026-03-01T00:00:00-08:00');
    expect(dateTimeAt(at('2026-03-01T08:00:00.250Z'), 345)).toBe('2026-03-01T13:45:00.250+05:45');
    expect(dateTimeAt(at('2026-03-01T08:00:00Z'), 0)).toBe('2026-03-01T08:00:00Z');
    expect(dateAt(at('2026-03-01T07:00:00Z'), -480)).toBe('2026-02-28');
  });

  it('tells a midnight on the clock', () => {
    expect(isMidnightAt(at('2026-03-01T08:00:00Z'), -480)).toBe(true);
    expect(isMidnightAt(at('2026-03-01T08:00:00Z'), 0)).toBe(false);
    expect(isMidnightAt(at('2026-03-01T00:00:00.001Z'), 0)).toBe(false);
  });

  it('numbers UTC quarter-hours', () => {
    expect(quarterOf(at('1970-01-01T00:14:59Z'))).toBe(0);
    expect(quarterOf(at('1970-01-01T00:15:00Z'))).toBe(1);
  });
});
