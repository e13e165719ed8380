/** Searchset paging: `_count`, `_summary=count`, opaque cursors and absolute links. */
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, pageSizeOf, searchsetBundle } from '../../../shared/fhir/searchset';
import { HttpError } from '../../../shared/http/errors';

const statusOf = (fn: () => unknown) => {
  try {
    fn();
    return 200;
  } catch (e) {
    return (e as HttpError).status;
  }
};

describe('page size', () => {
  it('defaults to 20, clamps to 1000, and counts only for _summary=count or _count=0', () => {
    expect(pageSizeOf(new URLSearchParams(''))).toEqual({ count: 20 });
    expect(pageSizeOf(new URLSearchParams('_count=5'))).toEqual({ count: 5 });
    expect(pageSizeOf(new URLSearchParams('_count=99999'))).toEqual({ count: 1000 });
    expect(pageSizeOf(new URLSearchParams('_count=0'))).toEqual({ count: 0 });
    expect(pageSizeOf(new URLSearchParams('_summary=count&_count=5'))).toEqual({ count: 0 });
  });

  it('refuses malformed values', () => {
    for (const qs of ['_count=-1', '_count=abc', '_count=1.5', '_count=1&_count=2', '_summary=text']) expect(statusOf(() => pageSizeOf(new URLSearchParams(qs)))).toBe(400);
  });
});

describe('cursors', () => {
  it('round-trip and are opaque', () => {
    const raw = encodeCursor({ direction: 'next', keys: ['rivera', null, 12] });
    expect(raw).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(raw, 3)).toEqual({ direction: 'next', keys: ['rivera', null, 12] });
  });

  it('refuse anything that is not one of ours', () => {
    const good = encodeCursor({ direction: 'previous', keys: [3] });
    expect(statusOf(() => decodeCursor(good, 1))).toBe(200);
    expect(statusOf(() => decodeCursor(good, 2))).toBe(400); // another search's shape
    for (const bad of ['', '!!!', Buffer.from('{"a":1}').toString('base64url'), Buffer.from('["x",1]').toString('base64url'), Buffer.from('["n",{"$gt":1}]').toString('base64url')]) {
      expect(statusOf(() => decodeCursor(bad, 1))).toBe(400);
    }
  });
});

describe('bundle', () => {
  it('has self, next and previous links under the type URL and entries with fullUrl', () => {
    const bundle = searchsetBundle({
      selfParams: new URLSearchParams('family=riv&_count=1'),
      typeUrl: 'https://cdx.example.org/FHIR/R5/Patient',
      entries: [{ fullUrl: 'https://cdx.example.org/FHIR/R5/Patient/2', resource: { resourceType: 'Patient', id: '2' } }],
      total: 3,
      next: { direction: 'next', keys: [2] },
      previous: { direction: 'previous', keys: [2] },
    });
    expect(bundle).toMatchObject({ resourceType: 'Bundle', type: 'searchset', total: 3 });
    const links = bundle.link as Array<{ relation: string; url: string }>;
    expect(links.map((l) => l.relation)).toEqual(['self', 'next', 'previous']);
    expect(links[0]!.url).toBe('https://cdx.example.org/FHIR/R5/Patient?family=riv&_count=1');
    expect(links[1]!.url).toMatch(/^https:\/\/cdx\.example\.org\/FHIR\/R5\/Patient\?family=riv&_count=1&_cursor=[A-Za-z0-9_-]+$/);
    expect(bundle.entry).toEqual([{ fullUrl: 'https://cdx.example.org/FHIR/R5/Patient/2', resource: { resourceType: 'Patient', id: '2' }, search: { mode: 'match' } }]);
  });
});
