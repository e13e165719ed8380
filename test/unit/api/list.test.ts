/** `/api/v1/` paging: `page` / `page_size` and absolute links. */
import { describe, expect, it } from 'vitest';
import { CUSTOM_PAGING, LARGE_PAGING, listBody, pagingOf } from '../../../shared/api/list';
import { HttpError } from '../../../shared/http/errors';

const req = (qs: string) => ({ origin: 'https://cdx.example.org', path: '/api/v1/patients', query: new URLSearchParams(qs) });

function statusOf(fn: () => unknown): number {
  try {
    fn();
  } catch (e) {
    return (e as HttpError).status;
  }
  return 200;
}

describe('paging', () => {
  it('reads page and page_size with defaults and a ceiling', () => {
    expect(pagingOf(new URLSearchParams(''), CUSTOM_PAGING)).toEqual({ page: 1, pageSize: 20 });
    expect(pagingOf(new URLSearchParams('page=3&page_size=5'), CUSTOM_PAGING)).toEqual({ page: 3, pageSize: 5 });
    expect(pagingOf(new URLSearchParams('page_size=50000'), CUSTOM_PAGING)).toEqual({ page: 1, pageSize: 1000 });
    expect(pagingOf(new URLSearchParams('page_size=5'), LARGE_PAGING)).toEqual({ page: 1, pageSize: 1000 });
  });

  it('refuses malformed values', () => {
    expect(statusOf(() => pagingOf(new URLSearchParams('page=abc'), CUSTOM_PAGING))).toBe(404);
    expect(statusOf(() => pagingOf(new URLSearchParams('page=0'), CUSTOM_PAGING))).toBe(404);
    expect(statusOf(() => pagingOf(new URLSearchParams('page_size=-1'), CUSTOM_PAGING))).toBe(400);
  });

  it('links the neighbouring pages with the rest of the query kept', () => {
    const body = listBody(req('organization_id=2&page=2&page_size=2'), { count: 5, items: ['c', 'd'] }, { page: 2, pageSize: 2 });
    expect(body).toEqual({
      count: 5,
      next: 'https://cdx.example.org/api/v1/patients?organization_id=2&page=3&page_size=2',
      previous: 'https://cdx.example.org/api/v1/patients?organization_id=2&page_size=2',
      results: ['c', 'd'],
    });
    expect(listBody(req(''), { count: 1, items: ['a'] }, { page: 1, pageSize: 20 })).toMatchObject({ next: null, previous: null });
  });
});
