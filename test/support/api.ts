/** Calls to `/api/v1/` in tests: JSON bodies, and refusals that must leave every stored row as it was. */
import { expect } from 'vitest';
import { call, type TestResponse } from './invoke';
import { directoryRows } from './store';

export function send(method: string, url: string, token: string | undefined, body?: unknown): Promise<TestResponse> {
  return call(method, url, { ...(token ? { token } : {}), ...(body !== undefined ? { body, headers: { 'content-type': 'application/json' } } : {}) });
}

/** Runs a request that must be refused with a 4xx and checks that no stored row changed. */
export async function refused(method: string, url: string, token: string | undefined, body?: unknown): Promise<TestResponse> {
  const before = await directoryRows();
  const res = await send(method, url, token, body);
  expect(res.status, `${method} ${url}: ${res.text}`).toBeGreaterThanOrEqual(400);
  expect(res.status, `${method} ${url}: ${res.text}`).toBeLessThan(500);
  expect(await directoryRows()).toEqual(before);
  return res;
}

/** The ids of an `/api/v1/` list answer. */
export const resultIds = (json: { results: Array<{ id: number }> }) => json.results.map((r) => r.id);
