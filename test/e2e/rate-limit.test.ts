/** The local gateway's per-caller rate limit: a clear 429 in each path's dialect, with Retry-After, before any handler runs. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../local/gateway';
import { startTestGateway } from '../support/gateway';

let gateway: Gateway;
beforeAll(async () => {
  gateway = await startTestGateway({ rateLimit: { perSecond: 1, burst: 2 } });
});
afterAll(() => gateway?.close());

const get = (path: string, token: string) => fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${token}` } });

describe('per-caller rate limit', () => {
  it('answers 429 with an OperationOutcome on FHIR paths once a caller spent its burst; another caller is not affected', async () => {
    const first = await get('/FHIR/R5/Observation', 'caller-one');
    const second = await get('/FHIR/R5/Observation', 'caller-one');
    expect([first.status, second.status]).toEqual([401, 401]);
    const third = await get('/FHIR/R5/Observation', 'caller-one');
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('1');
    const outcome = await third.json();
    expect(outcome).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'throttled' }] });
    expect(outcome.issue[0].diagnostics).toMatch(/at most 1 a second per caller/);
    expect((await get('/FHIR/R5/Observation', 'caller-two')).status).toBe(401);
  });

  it("answers in the management API's shape on /api/v1/", async () => {
    await get('/api/v1/patients', 'caller-three');
    await get('/api/v1/patients', 'caller-three');
    const refused = await get('/api/v1/patients', 'caller-three');
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ detail: expect.stringMatching(/^Too many requests/) });
  });
});
