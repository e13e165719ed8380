import { describe, expect, it } from 'vitest';
import { isoInstant, parseDateTime, parseFullDate } from '../../../shared/omh/datetime';

const instant = (text: string) => {
  const parsed = parseDateTime(text);
  if (typeof parsed === 'string') throw new Error(`${text}: ${parsed}`);
  return parsed;
};

describe('parseDateTime (strict RFC 3339)', () => {
  it('reads Z, positive and negative offsets as the same UTC instant', () => {
    const utc = Date.UTC(2025, 2, 1, 12, 58);
    expect(instant('2025-03-01T12:58:00Z')).toEqual({ ms: utc, offsetMinutes: 0 });
    expect(instant('2025-03-01T07:58:00-05:00')).toEqual({ ms: utc, offsetMinutes: -300 });
    expect(instant('2025-03-01T18:28:00+05:30')).toEqual({ ms: utc, offsetMinutes: 330 });
    expect(instant('2025-03-01t12:58:00z').ms).toBe(utc);
    expect(instant('2025-03-01T12:58:00-00:00').ms).toBe(utc);
  });

  it('keeps milliseconds and truncates finer fractions', () => {
    expect(instant('2025-03-01T12:58:00.5Z').ms).toBe(Date.UTC(2025, 2, 1, 12, 58, 0, 500));
    expect(instant('2025-03-01T12:58:00.123999Z').ms).toBe(Date.UTC(2025, 2, 1, 12, 58, 0, 123));
  });

  it('reads years below 100 literally', () => {
    expect(new Date(instant('0050-01-01T00:00:00Z').ms).getUTCFullYear()).toBe(50);
  });

  it.each([
    ['2025-03-01T06:30:00', /offset/],
    ['2025-03-01', /offset/],
    ['2025-03-01 06:30:00Z', /offset/],
    ['2025-03-01T06:30Z', /offset/],
    ['20250301T063000Z', /offset/],
    ['yesterday', /offset/],
    ['2025-03-01T06:30:00+0100', /offset/],
    ['２０２５-03-01T06:30:00Z', /offset/],
    ['2025-02-30T10:00:00Z', /does not exist \(2025-02-30\)/],
    ['2025-02-29T10:00:00Z', /does not exist/],
    ['1900-02-29T10:00:00Z', /does not exist/],
    ['2025-13-01T10:00:00Z', /does not exist/],
    ['2025-04-31T10:00:00Z', /does not exist/],
    ['2025-00-10T10:00:00Z', /does not exist/],
    ['2025-03-01T24:00:00Z', /time of day/],
    ['2025-03-01T12:60:00Z', /time of day/],
    ['2025-03-01T12:00:61Z', /time of day/],
    ['2025-03-01T12:00:00+24:00', /offset/],
    ['2025-03-01T12:00:00+05:60', /offset/],
    ['2025-03-01T12:59:60Z', /leap second/],
  ])('rejects %s', (text, reason) => {
    const parsed = parseDateTime(text);
    expect(typeof parsed).toBe('string');
    expect(parsed).toMatch(reason);
  });

  it('accepts leap days and a leap second at 23:59:60 UTC', () => {
    expect(instant('2024-02-29T10:00:00Z').ms).toBe(Date.UTC(2024, 1, 29, 10));
    expect(instant('2000-02-29T10:00:00Z').ms).toBe(Date.UTC(2000, 1, 29, 10));
    expect(instant('2016-12-31T23:59:60Z').ms).toBe(Date.UTC(2017, 0, 1));
    expect(instant('2016-12-31T18:59:60-05:00').ms).toBe(Date.UTC(2017, 0, 1));
  });
});

describe('parseFullDate', () => {
  it('reads a real day as midnight UTC and names an impossible one', () => {
    expect(parseFullDate('2024-02-29')).toBe(Date.UTC(2024, 1, 29));
    expect(parseFullDate('2025-02-29')).toMatch(/does not exist/);
    expect(parseFullDate('2025-3-1')).toMatch(/YYYY-MM-DD/);
  });
});

describe('isoInstant', () => {
  it('writes UTC with Z, milliseconds only when not zero', () => {
    expect(isoInstant(Date.UTC(2025, 2, 1, 12, 58))).toBe('2025-03-01T12:58:00Z');
    expect(isoInstant(Date.UTC(2025, 2, 1, 12, 58, 0, 250))).toBe('2025-03-01T12:58:00.250Z');
  });
});
