/**
 * An R4 import of 1,000 entries (the most a Bundle may carry) against a slow auxiliary store: the
 * import answers 200 before its deadline, as it always does, with the entries done `201` and the
 * rest `503` with Retry-After, each saying it can be sent again (the resources have ids, so a
 * re-send replaces rather than copies); sent again, every resource is stored once.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { auxiliaryStore, useAuxiliaryStore } from '../../../shared/auxiliary/store/current';
import type { AuxiliaryStore } from '../../../shared/auxiliary/store/port';
import { SOURCE_HEADER, sourceUri } from '../../../shared/fhir/constants';
import { RETRY_AFTER_SECONDS } from '../../../shared/http/deadline';
import { auxiliaryWorld, type AuxiliaryWorld } from '../../support/auxiliary';
import { call } from '../../support/invoke';
import { saturated } from '../../support/slow-stores';

let world: AuxiliaryWorld;
let twin: AuxiliaryStore;
beforeAll(async () => {
  world = await auxiliaryWorld();
  twin = auxiliaryStore();
});
afterEach(() => void useAuxiliaryStore(twin));

/** The function's time limit: 1.5 s of it go to the early answer and to rendering, 6.5 s to work. */
const TIMEOUT_MS = 8000;

const conditions = Array.from({ length: 1000 }, (_, i) => ({
  resourceType: 'Condition',
  id: `deadline-${i}`,
  clinicalStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-clinical', code: 'active' }] },
  code: { text: `Condition ${i}` },
  subject: { reference: 'Patient/p1' },
  recordedDate: '2024-02-01',
}));
const bundle = { resourceType: 'Bundle', type: 'batch', entry: conditions.map((resource) => ({ resource })) };

const importAll = (timeoutMs?: number) =>
  call('POST', '/fhir-import/R4', { token: world.alice.token, body: bundle, headers: { [SOURCE_HEADER]: String(world.aliceSource.id) }, ...(timeoutMs ? { timeoutMs } : {}) });

async function storedCount(): Promise<number> {
  const res = await call('GET', `/FHIR/R5/Condition?_source=${encodeURIComponent(sourceUri(world.aliceSource.id))}&_summary=count`, { token: world.alice.token });
  expect(res.status).toBe(200);
  return res.json.total;
}

describe('an import of 1,000 entries against a slow store', () => {
  it('answers 200 before its deadline with what was stored and 503 for the rest; the re-send completes it, each resource once', async () => {
    // One write at a time, 20 ms each: 1,000 writes need 20 s, the deadline allows 6.5.
    useAuxiliaryStore({ ...twin, rows: saturated(twin.rows, ['create', 'update'], 20) });
    const first = await importAll(TIMEOUT_MS);
    expect(first.status).toBe(200);
    expect(first.headers['retry-after']).toBe(String(RETRY_AFTER_SECONDS));
    const statuses: string[] = first.json.entry.map((e: any) => e.response.status);
    const done = statuses.filter((s) => s === '201 Created').length;
    expect(done).toBeGreaterThan(0);
    expect(done).toBeLessThan(conditions.length);
    expect(new Set(statuses)).toEqual(new Set(['201 Created', '503 Service Unavailable']));
    const left = (first.json.entry as any[]).filter((e) => e.response.status.startsWith('503'));
    for (const entry of left) {
      expect(entry.response.outcome.issue[0]).toMatchObject({ severity: 'error', code: 'timeout' });
      // Resources, not readings; each safe to send again as it is.
      expect(entry.response.outcome.issue[0].diagnostics).toMatch(/this resource .*Send it again as it is/);
      expect(entry.response.outcome.issue[0].diagnostics).not.toMatch(/reading/);
    }
    expect(left.at(-1).response.outcome.issue[0].diagnostics).toMatch(/^Not processed: /);

    await new Promise((resolve) => setTimeout(resolve, 1000));
    useAuxiliaryStore(twin);
    const stored = await storedCount();
    expect(stored).toBeGreaterThanOrEqual(done);
    expect(stored).toBeLessThan(conditions.length);

    const second = await importAll();
    expect(second.status).toBe(200);
    expect(second.json.entry.every((e: any) => e.response.status === '201 Created')).toBe(true);
    // Those stored the first time were replaced, keeping their ids; the others were created.
    const replaced = (second.json.entry as any[]).filter((e) => e.response.outcome.issue.some((i: any) => /was replaced and keeps its id/.test(i.diagnostics)));
    expect(replaced).toHaveLength(stored);
    expect(await storedCount()).toBe(conditions.length);
  });
});
