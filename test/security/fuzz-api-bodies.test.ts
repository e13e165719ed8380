/**
 * Fuzzing every `/api/v1/` write with bodies of any shape (hostile keys, deep nesting, huge strings,
 * text that is not JSON) and mutations of a body it would accept. Every answer is a well-formed 2xx
 * or a 4xx in the API's dialect (`{field: [messages]}` or `{detail}`; the portal's `{error}` on its
 * identifier call), never a 5xx; and an answer
 * that refused leaves every directory row as it was.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { API_WRITES, apiWorld, type ApiWorld } from '../support/api';
import { CaseCount, expectWellFormed, fuzz, fuzzTimeout } from '../support/fuzz';
import { bodyText, mutationsOf } from '../support/fuzz-inputs';
import { call } from '../support/invoke';
import { directoryRows } from '../support/store';

let world: ApiWorld;
const cases = new CaseCount('/api/v1/ bodies');

beforeAll(async () => {
  world = await apiWorld();
});
afterAll(() => console.log(cases.line()));

/** Per write and kind of body: the writes are many, each case reads the directory table back. */
const QUICK = 10;
vi.setConfig({ testTimeout: fuzzTimeout(QUICK * API_WRITES.length) });

describe.each(API_WRITES)('$name', (write) => {
  it('answers any body and mutations of a good one well; a refusal changes nothing', async () => {
    const body = fc.oneof(bodyText, mutationsOf(() => write.body(world)).map((b) => JSON.stringify(b)));
    let rows = await directoryRows();
    await fuzz(QUICK * 2, body, async (text) => {
      cases.tried(write.name);
      const res = await call(write.method, write.url(world), { token: write.token(world), body: text, headers: { 'content-type': 'application/json' } });
      const dialect = write.url(world).startsWith('/api/v1/portal/') ? 'portal' : 'api';
      expectWellFormed(res, dialect, `${write.method} ${write.url(world)} ${text.slice(0, 200)}`);
      const after = await directoryRows();
      if (res.status >= 400) expect(after, `${text.slice(0, 200)} -> ${res.status}`).toEqual(rows);
      rows = after;
    });
  });
});
