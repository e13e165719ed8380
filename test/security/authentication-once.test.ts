/**
 * Authentication happens once a request, where the route is dispatched (shared/http/dispatch.ts),
 * from the route's declared access; no handler looks for its caller again. Every function of
 * shared/auth/authenticate.ts that authenticates a request is counted, for whoever imports it, and
 * one request of every route of the isolation table (which covers every route of every family) is
 * sent as a practitioner and as a patient (whose tokens take the early-read path): a route that
 * needs a caller authenticates exactly once, an open route (or an answer given before anyone is
 * asked, a 404 or 405) never. The linter refuses the import outside the family handlers
 * (planted imports in test/unit/eslint.config.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { authenticate } from '../../shared/auth/authenticate';
import { createHandler } from '../../shared/http/handler';
import { json } from '../../shared/http/response';
import { call } from '../support/invoke';
import { worldOfCallers, type Caller, type Tokens } from './callers';
import { TABLE } from './isolation-table';
import { sendProbe, type Row } from './table-model';
import type { World } from './world';

const authentications = vi.hoisted(() => ({ count: 0 }));

vi.mock('../../shared/auth/authenticate', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../shared/auth/authenticate')>();
  const counted = <A extends unknown[], R>(f: (...args: A) => R) => (...args: A): R => {
    authentications.count += 1;
    return f(...args);
  };
  return {
    ...actual,
    authenticate: counted(actual.authenticate),
    authorizedRead: counted(actual.authorizedRead),
    callerFromToken: counted(actual.callerFromToken),
    authenticator: {
      authenticate: counted(actual.authenticator.authenticate),
      authorizedRead: counted(actual.authenticator.authorizedRead),
    },
  };
});

let world: World;
let tokens: Tokens;
let sent = 0;

beforeAll(async () => {
  ({ world, tokens } = await worldOfCallers());
});

afterAll(() => console.log(`authentication once: ${sent} requests of ${TABLE.length} table rows`));

/** Authentications one request of `row` made, sent as `caller` (a disposable target when the caller may use it up). */
async function authenticationsOf(row: Row, caller: Caller): Promise<{ count: number; about: string }> {
  const method = row.route.split(' ')[0]!;
  const aimedAt = row.fresh && row.expect[caller] < 300 ? await row.fresh(world) : world;
  const probe = row.send(aimedAt);
  authentications.count = 0;
  const res = await sendProbe(method, probe.path, probe, tokens[caller]);
  sent += 1;
  return { count: authentications.count, about: `${caller}: ${method} ${probe.path} -> ${res.status}` };
}

describe('authentication, once a request', () => {
  it('counts a handler that authenticates again (the instrument works)', async () => {
    const twice = createHandler({
      family: 'test',
      authenticator: (await import('../../shared/auth/authenticate')).authenticator,
      routes: [{ method: 'GET', path: '/api/v1/twice', auth: 'caller', handler: async (req) => json(200, { again: (await authenticate(req)).userId }) }],
    });
    authentications.count = 0;
    const res = await call('GET', '/api/v1/twice', { token: tokens.inOrg, handlers: { fhir: twice, 'fhir-import': twice, api: twice, oauth: twice, mcp: twice } });
    expect(res.status).toBe(200);
    expect(authentications.count).toBe(2);
  });

  it('is exactly one for every route that needs a caller, and none for the others, whoever asks', async () => {
    const wrong: string[] = [];
    for (const row of TABLE) {
      // A route that needs a caller answers a request without a token 401; anything else is decided without one.
      const expected = row.expect.anonymous === 401 ? 1 : 0;
      for (const caller of ['inOrg', 'patientA'] as const) {
        const { count, about } = await authenticationsOf(row, caller);
        if (count !== expected) wrong.push(`${row.route}${row.type ? ` ${row.type}` : ''} (${about}): ${count} authentications, expected ${expected}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
