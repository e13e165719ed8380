/** Parsing an auxiliary search: scoping parameters, `_source` and `_id` restrictions, result parameters, what is ignored. */
import { describe, expect, it } from 'vitest';
import { parseAuxiliarySearch, sourceIdOfUri } from '../../../../shared/auxiliary/search/params';
import { sourceUriPrefix } from '../../../../shared/fhir/constants';
import { isHttpError } from '../../../../shared/http/errors';

const parse = (query: string, prefer?: string) => parseAuxiliarySearch('Condition', new URLSearchParams(query), prefer);

function status(fn: () => unknown): number | undefined {
  try {
    fn();
  } catch (e) {
    return isHttpError(e) ? e.status : -1;
  }
  return undefined;
}

describe('parseAuxiliarySearch', () => {
  it('takes the scoping parameters out of the criteria: one filter, and one more per repetition (AND)', () => {
    const s = parse('patient=1,Patient/2&patient.organization=3&code=x&patient=4&patient.identifier=sys|v,w&_has:Group:member:_id=9');
    expect(s.scope).toEqual([
      { patient: ['1', 'Patient/2'], organization: ['3'], identifier: [{ system: 'sys', value: 'v' }, { value: 'w' }], study: ['9'] },
      { patient: ['4'] },
    ]);
    expect(s.criteria.map((c) => c.param.code)).toEqual(['code']);
    expect(s.ignored).toEqual([]);
  });

  it('treats patient as scoping even on a type whose R5 definition has no patient parameter', () => {
    const s = parseAuxiliarySearch('Location', new URLSearchParams('patient=7&patient._has:Group:member:_id=2'));
    expect(s.scope).toEqual([{ patient: ['7'], study: ['2'] }]);
    expect(s.ignored).toEqual([]);
  });

  it('restricts to the FHIR Sources _source names exactly (OR within, AND across)', () => {
    expect(parse('').sourceIds).toBeUndefined();
    expect(parse(`_source=${sourceUriPrefix()}5,${sourceUriPrefix()}6`).sourceIds).toEqual([5, 6]);
    expect(parse(`_source=${sourceUriPrefix()}5,https://other/x`).sourceIds).toEqual([5]);
    expect(parse(`_source=${sourceUriPrefix()}5,${sourceUriPrefix()}6&_source=${sourceUriPrefix()}6`).sourceIds).toEqual([6]);
    expect(parse('_source=https://other/x').sourceIds).toEqual([]);
    expect(parse(`_source:below=${sourceUriPrefix()}`).sourceIds).toBeUndefined();
    expect(parse(`_source:below=${sourceUriPrefix()}`).criteria).toHaveLength(1);
  });

  it('collects the ids _id names, unless negated', () => {
    expect(parse('_id=a,b&_id=b,c').ids).toEqual(['b']);
    expect(parse('_id=|a').ids).toEqual(['a']);
    expect(parse('_id=sys|a').ids).toEqual([]);
    expect(parse('_id:not=a').ids).toBeUndefined();
  });

  it('reads the result parameters', () => {
    expect(parse('')).toMatchObject({ count: 20, countOnly: false, sort: [] });
    expect(parse('_count=5000').count).toBe(1000);
    expect(parse('_count=0').countOnly).toBe(true);
    expect(parse('_summary=count').countOnly).toBe(true);
    expect(parse('_total=accurate').total).toBe('accurate');
    expect(parse('_sort=-recorded-date,code').sort.map((s) => [s.param.code, s.descending])).toEqual([
      ['recorded-date', true],
      ['code', false],
    ]);
    expect(parse('_cursor=abc').cursor).toBe('abc');
    expect(parse('_format=json&_pretty=true').ignored).toEqual([]);
    // A malformed _count is ignored (the default page size) and reported; a 400 only under strict handling.
    expect(parse('_count=ten')).toMatchObject({ count: 20, ignored: [{ name: '_count' }] });
    expect(status(() => parse('_count=ten', 'handling=strict'))).toBe(400);
    expect(status(() => parse('_total=some'))).toBe(400);
  });

  it('reports what it ignores; Prefer: handling=strict turns that into a 400', () => {
    const s = parse('shoe-size=3&_include=Condition:subject&subject.name=x&_summary=true');
    expect(s.ignored.map((u) => u.name).sort()).toEqual(['_include', '_summary=true', 'shoe-size', 'subject.name']);
    expect(status(() => parse('shoe-size=3', 'handling=strict'))).toBe(400);
    expect(status(() => parse('_include=Condition:subject', 'return=minimal, handling=strict'))).toBe(400);
    expect(status(() => parse('code=x', 'handling=strict'))).toBeUndefined();
  });

  it('refuses malformed values before reading any store', () => {
    expect(status(() => parse('recorded-date=2019-02-30'))).toBe(400);
    expect(status(() => parse('code=|'))).toBe(400);
    expect(status(() => parse('_sort=shoe-size'))).toBe(400);
  });
});

describe('helpers', () => {
  it('sourceIdOfUri accepts only the prefix followed by digits', () => {
    expect(sourceIdOfUri(`${sourceUriPrefix()}42`)).toBe(42);
    expect(sourceIdOfUri(`${sourceUriPrefix()}42/x`)).toBeUndefined();
    expect(sourceIdOfUri(`${sourceUriPrefix()}`)).toBeUndefined();
    expect(sourceIdOfUri('https://elsewhere/fhir-source/42')).toBeUndefined();
  });
});
