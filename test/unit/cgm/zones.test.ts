/** Clocks: fixed offsets, and IANA time zones whose offset follows daylight saving. */
import { describe, expect, it } from 'vitest';
import { fixedClock, isTimeZone, localMidnight, UTC_CLOCK, zoneClock } from '../../../shared/cgm/zones';

const at = (text: string) => Date.parse(text);

describe('clocks', () => {
  it('a fixed clock and UTC keep their offset', () => {
    expect(fixedClock(-480)(at('2026-07-01T00:00:00Z'))).toBe(-480);
    expect(UTC_CLOCK(at('2026-07-01T00:00:00Z'))).toBe(0);
  });

  it("a zone's clock follows its daylight saving, to the instant of each change", () => {
    const la = zoneClock('America/Los_Angeles')!;
    expect(la(at('2026-01-15T12:00:00Z'))).toBe(-480);
    expect(la(at('2026-07-15T12:00:00Z'))).toBe(-420);
    // 2026-03-08 02:00 PST is 10:00 UTC: the clocks go forward.
    expect(la(at('2026-03-08T09:59:59.999Z'))).toBe(-480);
    expect(la(at('2026-03-08T10:00:00Z'))).toBe(-420);
    // 2026-11-01 02:00 PDT is 09:00 UTC: back.
    expect(la(at('2026-11-01T08:59:59Z'))).toBe(-420);
    expect(la(at('2026-11-01T09:00:00Z'))).toBe(-480);
    expect(zoneClock('Asia/Kathmandu')!(at('2026-07-15T12:00:00Z'))).toBe(345);
    expect(zoneClock('Europe/Berlin')!(at('2026-03-29T01:00:00Z'))).toBe(120);
    expect(zoneClock('UTC')!(at('2026-03-29T01:00:00Z'))).toBe(0);
  });

  it('a name the runtime does not know, or no zone name at all, is no zone', () => {
    for (const name of ['Mars/Olympus_Mons', '', '../etc/passwd', 'America/Los Angeles', 'a'.repeat(65), '__proto__', 'constructor']) {
      expect(isTimeZone(name), name).toBe(false);
      expect(zoneClock(name)).toBeUndefined();
    }
    expect(isTimeZone('Europe/Paris')).toBe(true);
  });
});

describe('localMidnight', () => {
  it("is the first instant of a calendar day on the clock, whatever the day's length", () => {
    const la = zoneClock('America/Los_Angeles')!;
    expect(localMidnight(Date.UTC(2026, 2, 8), la)).toBe(at('2026-03-08T08:00:00Z'));
    expect(localMidnight(Date.UTC(2026, 2, 9), la)).toBe(at('2026-03-09T07:00:00Z'));
    expect(localMidnight(Date.UTC(2026, 10, 1), la)).toBe(at('2026-11-01T07:00:00Z'));
    expect(localMidnight(Date.UTC(2026, 10, 2), la)).toBe(at('2026-11-02T08:00:00Z'));
    expect(localMidnight(Date.UTC(2026, 2, 8), fixedClock(345))).toBe(at('2026-03-07T18:15:00Z'));
  });

  it('is the change itself where the clocks go forward over midnight', () => {
    // Chile (America/Santiago) moved its clocks from 24:00 to 01:00 on 2024-09-08 (-04:00 to -03:00).
    const santiago = zoneClock('America/Santiago')!;
    expect(localMidnight(Date.UTC(2024, 8, 8), santiago)).toBe(at('2024-09-08T04:00:00Z'));
    expect(santiago(at('2024-09-08T04:00:00Z'))).toBe(-180);
  });
});
