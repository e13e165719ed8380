/** The search kernel: `_count` / `_summary`, page cutting, bound cursors, handling and the searchset Bundle. */
import { describe, expect, it } from 'vitest';
import {
  cursorOf,
  cutPage,
  decodeCursor,
  encodeCursor,
  enforceHandling,
  isSortValues,
  linkedSearch,
  readPageRequest,
  rowsFrom,
  searchDigest,
  searchsetBundle,
  type PositionCodec,
} from '../../../shared/fhir/searchset';
import { statusOf } from '../../support/errors';


const page = (qs: string) => readPageRequest(new URLSearchParams(qs));

describe('_count and _summary: one reading for every store', () => {
  it('defaults to 20, clamps to the maximum, and counts only for _count=0 or _summary=count', () => {
    expect(page('')).toEqual({ count: 20, countOnly: false, ignored: [] });
    expect(page('_count=5')).toEqual({ count: 5, countOnly: false, ignored: [] });
    expect(page('_count=99999')).toEqual({ count: 1000, countOnly: false, ignored: [] });
    expect(page('_count=0')).toMatchObject({ countOnly: true, ignored: [] });
    expect(page('_summary=count&_count=5')).toMatchObject({ countOnly: true, ignored: [] });
    expect(page('_summary=false')).toEqual({ count: 20, countOnly: false, ignored: [] });
  });

  it('a malformed _count is ignored (the default page size, reported); an unknown _summary too', () => {
    for (const qs of ['_count=-1', '_count=abc', '_count=1.5', '_count=', '_count=1&_count=2']) {
      const read = page(qs);
      expect(read, qs).toMatchObject({ count: 20, countOnly: false });
      expect(read.ignored.map((u) => u.name), qs).toEqual(['_count']);
      expect(read.ignored[0]!.reason, qs).toContain('default page size of 20');
    }
    expect(page('_summary=text').ignored.map((u) => u.name)).toEqual(['_summary=text']);
  });

  it('is a 400 under Prefer: handling=strict, like every ignored parameter', () => {
    const { ignored } = page('_count=abc');
    expect(statusOf(() => enforceHandling('handling=strict', ignored))).toBe(400);
    expect(statusOf(() => enforceHandling('return=minimal; handling = strict', ignored))).toBe(400);
    expect(statusOf(() => enforceHandling('handling=lenient', ignored))).toBe(200);
    expect(statusOf(() => enforceHandling(undefined, ignored))).toBe(200);
    expect(statusOf(() => enforceHandling('handling=strict', []))).toBe(200);
  });
});

const numbers: PositionCodec<number> = { encode: (n) => n, decode: (v) => (typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined) };

describe('cursors', () => {
  const digest = searchDigest('Condition', new URLSearchParams('code=x&_count=3&_cursor=old'));

  it('round-trip, are opaque, and are bound to the search (not to its page size, cursor or parameter order)', () => {
    const raw = encodeCursor({ direction: 'previous', at: 7 }, numbers, digest);
    expect(raw).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(raw, numbers, digest)).toEqual({ direction: 'previous', at: 7 });
    expect(searchDigest('Condition', new URLSearchParams('code=x&_count=50'))).toBe(digest);
    expect(searchDigest('Condition', new URLSearchParams('a=1&b=2'))).toBe(searchDigest('Condition', new URLSearchParams('b=2&a=1')));
    expect(searchDigest('Condition', new URLSearchParams('code=y'))).not.toBe(digest);
    expect(searchDigest('Location', new URLSearchParams('code=x'))).not.toBe(digest);
  });

  it('refuse garbage, a position the store could not have written, and another search', () => {
    const other = searchDigest('Condition', new URLSearchParams('code=y'));
    expect(statusOf(() => decodeCursor(encodeCursor({ direction: 'next', at: 1 }, numbers, other), numbers, digest))).toBe(400);
    const shaped = (json: unknown) => Buffer.from(JSON.stringify(json)).toString('base64url');
    for (const bad of ['', '!!!', shaped(null), shaped([1]), shaped({ s: digest, d: 'x', at: 1 }), shaped({ s: digest, d: 'n', at: 'one' }), shaped({ s: digest, d: 'n' })]) {
      expect(statusOf(() => decodeCursor(bad, numbers, digest)), bad).toBe(400);
    }
  });

  it('refuse a cursor edited where Base64 decoding alone would not notice (a character added, padding, spaces)', () => {
    const raw = encodeCursor({ direction: 'next', at: 7 }, numbers, digest);
    for (const edited of [`${raw}x`, `${raw}=`, ` ${raw}`, `${raw.slice(0, 10)}.${raw.slice(10)}`]) {
      expect(Buffer.from(edited, 'base64url').toString('base64url')).toBe(raw);
      expect(statusOf(() => decodeCursor(edited, numbers, digest)), edited).toBe(400);
    }
  });

  it('sort values are strings, numbers or null, as many as the order has', () => {
    expect(isSortValues(['a', 1, null], 3)).toBe(true);
    expect(isSortValues(['a', 1], 3)).toBe(false);
    expect(isSortValues([{ $gt: 1 }], 1)).toBe(false);
    expect(isSortValues([Infinity], 1)).toBe(false);
  });
});

describe('page cutting', () => {
  const sorted = [1, 2, 3, 4, 5];
  const cut = (count: number, cursor?: { direction: 'next' | 'previous'; at: number }) =>
    cutPage(rowsFrom(sorted, cursor, (row, at) => row - at), count, cursor, (n) => n);

  it('a first page links forward only, a middle page both ways, the last page back only', async () => {
    expect(await cut(2)).toEqual({ rows: [1, 2], more: true, next: { direction: 'next', at: 2 } });
    expect(await cut(2, { direction: 'next', at: 2 })).toEqual({ rows: [3, 4], more: true, next: { direction: 'next', at: 4 }, previous: { direction: 'previous', at: 3 } });
    expect(await cut(2, { direction: 'next', at: 4 })).toEqual({ rows: [5], more: false, previous: { direction: 'previous', at: 5 } });
  });

  it('a previous page comes back in the result order', async () => {
    expect(await cut(2, { direction: 'previous', at: 5 })).toEqual({ rows: [3, 4], more: true, next: { direction: 'next', at: 4 }, previous: { direction: 'previous', at: 3 } });
    expect(await cut(2, { direction: 'previous', at: 3 })).toEqual({ rows: [1, 2], more: false, next: { direction: 'next', at: 2 } });
  });

  it('reads only one row beyond the page', async () => {
    let read = 0;
    async function* counted() {
      for (const n of sorted) {
        read += 1;
        yield [n];
      }
    }
    await cutPage(counted(), 2, undefined, (n) => n);
    expect(read).toBe(3);
    read = 0;
    expect(await cutPage(counted(), 0, undefined, (n) => n)).toEqual({ rows: [], more: false });
    expect(read).toBe(0);
  });

  it('takes rows run by run, and no run beyond the one that holds the row after the page', async () => {
    const runs = [[1, 2, 3], [4], [5]];
    let read = 0;
    async function* counted() {
      for (const run of runs) {
        read += 1;
        yield run;
      }
    }
    expect(await cutPage(counted(), 3, undefined, (n) => n)).toEqual({ rows: [1, 2, 3], more: true, next: { direction: 'next', at: 3 } });
    expect(read).toBe(2);
    read = 0;
    expect(await cutPage(counted(), 5, undefined, (n) => n)).toEqual({ rows: [1, 2, 3, 4, 5], more: false });
    expect(read).toBe(3);
  });
});

describe('the searchset Bundle', () => {
  const site = (base: string) => ({ origin: 'https://cdx.example.org', base });

  it('has self, next and previous links on the base the client used, entries with fullUrl, and the outcome entry', () => {
    const linked = linkedSearch(site('/fhir/r5'), 'Patient', new URLSearchParams('family=riv&_count=1'), numbers);
    const bundle = searchsetBundle(linked, {
      resources: [{ resourceType: 'Patient', id: '2' }],
      total: 3,
      next: { direction: 'next', at: 2 },
      previous: { direction: 'previous', at: 2 },
      ignored: [{ name: 'shoe-size', reason: 'not a Patient parameter' }],
    });
    expect(bundle).toMatchObject({ resourceType: 'Bundle', type: 'searchset', total: 3 });
    expect(bundle.link.map((l) => l.relation)).toEqual(['self', 'next', 'previous']);
    expect(bundle.link[0]!.url).toBe('https://cdx.example.org/fhir/r5/Patient?family=riv&_count=1');
    expect(bundle.link[1]!.url).toMatch(/^https:\/\/cdx\.example\.org\/fhir\/r5\/Patient\?family=riv&_count=1&_cursor=[A-Za-z0-9_-]+$/);
    const next = new URL(bundle.link[1]!.url);
    expect(cursorOf(linked, next.searchParams.get('_cursor')!)).toEqual({ direction: 'next', at: 2 });
    expect(bundle.entry[0]).toEqual({ fullUrl: 'https://cdx.example.org/fhir/r5/Patient/2', resource: { resourceType: 'Patient', id: '2' }, search: { mode: 'match' } });
    expect(bundle.entry[1]).toMatchObject({ search: { mode: 'outcome' }, resource: { resourceType: 'OperationOutcome', issue: [{ severity: 'warning', expression: ['shoe-size'] }] } });
  });

  it('leaves total out when unknown, and has no outcome entry when nothing was ignored', () => {
    const bundle = searchsetBundle(linkedSearch(site('/FHIR/R5'), 'Condition', new URLSearchParams(''), numbers), { resources: [], ignored: [] });
    expect(bundle).toEqual({ resourceType: 'Bundle', type: 'searchset', link: [{ relation: 'self', url: 'https://cdx.example.org/FHIR/R5/Condition' }], entry: [] });
  });
});
