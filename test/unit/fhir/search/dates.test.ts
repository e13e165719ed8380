import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dateRange, MAX_TIME, MIN_TIME, periodRange } from '../../../../shared/fhir/search/dates';
import { rangeMatches } from '../../../../shared/fhir/search/match';
import { parseNumberValue } from '../../../../shared/fhir/search/values';
import { PREFIXES } from '../../../../shared/fhir/search/criteria';

const utc = (iso: string) => Date.parse(iso);

describe('date ranges', () => {
  it('cover the span of their precision, anchored in UTC', () => {
    expect(dateRange('2013')).toEqual({ lo: utc('2013-01-01T00:00:00Z'), hi: utc('2014-01-01T00:00:00Z') });
    expect(dateRange('2012-02')).toEqual({ lo: utc('2012-02-01T00:00:00Z'), hi: utc('2012-03-01T00:00:00Z') });
    expect(dateRange('2013-01-14')).toEqual({ lo: utc('2013-01-14T00:00:00Z'), hi: utc('2013-01-15T00:00:00Z') });
    expect(dateRange('2013-01-14T10:00')).toEqual({ lo: utc('2013-01-14T10:00:00Z'), hi: utc('2013-01-14T10:01:00Z') });
    expect(dateRange('2013-01-14T10:00:05Z')).toEqual({ lo: utc('2013-01-14T10:00:05Z'), hi: utc('2013-01-14T10:00:06Z') });
    expect(dateRange('2013-01-14T10:00:05.1Z')).toEqual({ lo: utc('2013-01-14T10:00:05.100Z'), hi: utc('2013-01-14T10:00:05.200Z') });
    expect(dateRange('2013-01-14T10:00:05.123456+00:00')).toEqual({ lo: utc('2013-01-14T10:00:05.123Z'), hi: utc('2013-01-14T10:00:05.124Z') });
  });

  it('normalise offsets', () => {
    expect(dateRange('2013-01-14T10:00:00+02:00')).toEqual(dateRange('2013-01-14T08:00:00Z'));
    expect(dateRange('2013-01-14T00:30:00-05:30')!.lo).toBe(utc('2013-01-14T06:00:00Z'));
  });

  it('take a leap second only where one can be, 23:59:60 UTC, as the second before it; never seconds past 60', () => {
    expect(dateRange('2016-12-31T23:59:60Z')).toEqual({ lo: utc('2016-12-31T23:59:59Z'), hi: utc('2017-01-01T00:00:00Z') });
    expect(dateRange('2016-12-31T18:59:60-05:00')).toEqual(dateRange('2016-12-31T23:59:60Z'));
    for (const bad of ['2025-06-15T10:00:60Z', '2016-12-31T23:59:60+01:00', '2025-01-01T10:00:61Z', '2025-01-01T10:00:99Z']) {
      expect(dateRange(bad), bad).toBeUndefined();
    }
  });

  it('reject what is not a calendar date', () => {
    for (const bad of ['2013-02-29', '2013-13', '2013-00-10', '2013-01-14T24:00:00Z', '2013-01-14T10:61Z', '13-01-14', 'yesterday', '2013-01-14T10:00:00+15:00', '']) {
      expect(dateRange(bad), bad).toBeUndefined();
    }
    expect(dateRange('2012-02-29')).toBeDefined();
    expect(dateRange('0001-01-01')!.lo).toBe(new Date('0001-01-01T00:00:00Z').getTime());
    expect(dateRange('0099-12-31')!.hi).toBe(new Date('0100-01-01T00:00:00Z').getTime());
  });

  it('make periods from the start of the start to the end of the end, open where absent', () => {
    expect(periodRange('2013-01-14', '2013-01-15')).toEqual({ lo: utc('2013-01-14T00:00:00Z'), hi: utc('2013-01-16T00:00:00Z') });
    expect(periodRange('2013-01-14', undefined)).toEqual({ lo: utc('2013-01-14T00:00:00Z'), hi: MAX_TIME });
    expect(periodRange(undefined, '2013')).toEqual({ lo: MIN_TIME, hi: utc('2014-01-01T00:00:00Z') });
    expect(periodRange(undefined, undefined)).toBeUndefined();
  });

  const instant = fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true });

  it('round-trip any instant: parsing its ISO form gives that millisecond', () => {
    fc.assert(
      fc.property(instant, (d) => {
        const range = dateRange(d.toISOString());
        return range !== undefined && range.lo === d.getTime() && range.hi === d.getTime() + 1;
      }),
    );
  });

  it('nest: a coarser prefix of a value always contains it', () => {
    fc.assert(
      fc.property(instant, (d) => {
        const iso = d.toISOString();
        const widths = [4, 7, 10].map((n) => dateRange(iso.slice(0, n))!);
        const fine = dateRange(iso.slice(0, 19) + 'Z')!;
        return [...widths, fine].every((outer, i, all) => all.slice(i + 1).every((inner) => outer.lo <= inner.lo && inner.hi <= outer.hi));
      }),
    );
  });

  it('give the same instant in every offset the same range', () => {
    fc.assert(
      fc.property(instant.filter((d) => d.getUTCFullYear() > 1 && d.getUTCFullYear() < 9999), fc.integer({ min: -12 * 60, max: 14 * 60 }), (d, offset) => {
        const shifted = new Date(d.getTime() + offset * 60_000).toISOString().slice(0, 19);
        const sign = offset < 0 ? '-' : '+';
        const abs = Math.abs(offset);
        const zone = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
        const withZone = dateRange(shifted + zone)!;
        const inUtc = dateRange(new Date(Math.floor(d.getTime() / 1000) * 1000).toISOString().slice(0, 19) + 'Z')!;
        return withZone.lo === inUtc.lo && withZone.hi === inUtc.hi;
      }),
    );
  });
});

describe('prefix semantics on ranges', () => {
  const range = fc
    .tuple(fc.integer({ min: -1e6, max: 1e6 }), fc.integer({ min: 1, max: 1e5 }))
    .map(([lo, width]) => ({ lo, hi: lo + width }));

  it('relate as the standard defines them', () => {
    fc.assert(
      fc.property(range, range, (search, target) => {
        const m = (p: (typeof PREFIXES)[number]) => rangeMatches(p, search, target, 0);
        const overlaps = target.lo < search.hi && target.hi > search.lo;
        return (
          m('ne') === !m('eq') &&
          (!m('eq') || (m('ge') && m('le'))) &&
          (!m('sa') || m('gt')) &&
          (!m('eb') || m('lt')) &&
          (!m('sa') || !overlaps) &&
          (!m('eb') || !overlaps) &&
          m('ap') === overlaps &&
          (!m('eq') || overlaps)
        );
      }),
    );
  });

  it('follow the worked cases', () => {
    const day = dateRange('2013-01-14')!;
    const inside = dateRange('2013-01-14T10:00:00Z')!;
    const spanning = periodRange('2013-01-13', '2013-01-15')!;
    const after = dateRange('2013-01-15')!;
    expect(rangeMatches('eq', day, inside, 0)).toBe(true);
    expect(rangeMatches('eq', day, spanning, 0)).toBe(false);
    expect(rangeMatches('gt', day, spanning, 0)).toBe(true);
    expect(rangeMatches('lt', day, spanning, 0)).toBe(true);
    expect(rangeMatches('sa', day, after, 0)).toBe(true);
    expect(rangeMatches('sa', day, spanning, 0)).toBe(false);
    expect(rangeMatches('eb', after, day, 0)).toBe(true);
    expect(rangeMatches('ap', day, after, 0)).toBe(false);
    expect(rangeMatches('ap', day, after, 1)).toBe(true);
  });
});

describe('numbers with implied precision', () => {
  it('take the precision they are written with', () => {
    expect(parseNumberValue('100')).toEqual({ value: 100, lo: 99.5, hi: 100.5 });
    expect(parseNumberValue('100.00')).toMatchObject({ value: 100, lo: 99.995, hi: 100.005 });
    expect(parseNumberValue('1e2')).toEqual({ value: 100, lo: 50, hi: 150 });
    expect(parseNumberValue('-0.5')).toEqual({ value: -0.5, lo: -0.55, hi: -0.45 });
    expect(parseNumberValue('12a')).toBeUndefined();
    expect(parseNumberValue('')).toBeUndefined();
  });

  it('always contain the value itself, in a range as wide as one unit of the last digit', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: 0, max: 6 }), (n, decimals) => {
        const text = (n / 10 ** decimals).toFixed(decimals);
        const parsed = parseNumberValue(text)!;
        const width = parsed.hi - parsed.lo;
        return parsed.lo <= parsed.value && parsed.value < parsed.hi && Math.abs(width - 10 ** -decimals) < 1e-9 * Math.max(1, Math.abs(n));
      }),
    );
  });
});
