/**
 * A code added to the code table since this process loaded it (by another instance: written to the
 * directory, not through this process's cache) is found by a search and by `$stats` at once: a
 * request naming a code the cached table lacks reloads it, at most every few seconds.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createCode } from '../../../shared/directory/code-table';
import { directoryStore, useDirectoryStore } from '../../../shared/directory/store/current';
import { forgetCodeTable } from '../../../shared/observations/code-table-cache';
import { storeObservations } from '../../../shared/observations/write';
import { call } from '../../support/invoke';
import { matchIds, observationWorld, search } from '../../support/observations';

const SYSTEM = 'https://new-codes.test/codes';
const restore: Array<() => void> = [];
afterEach(() => restore.splice(0).forEach((undo) => undo()));

/** How often the code table is listed from now on. */
function countListings(): () => number {
  const inner = directoryStore();
  let listed = 0;
  useDirectoryStore({ ...inner, codes: { ...inner.codes, list: async () => ((listed += 1), inner.codes.list()) } });
  restore.push(() => useDirectoryStore(inner));
  return () => listed;
}

describe('a code added on another instance', () => {
  it('is found by a search and by $stats without waiting for the cached table to expire', async () => {
    const world = await observationWorld();
    const token = world.patient.token;
    const code = await createCode({ system: SYSTEM, code: `c-${randomUUID()}`, display: 'Added elsewhere' });
    const uuid = randomUUID();
    const [outcome] = await storeObservations([
      { patientId: world.patient.id, codeId: code.id, deviceId: world.device.id, status: 'final', identifiers: [], data: Buffer.from(JSON.stringify({ header: { uuid } })).toString('base64'), uuid, effective: { kind: 'dateTime', start: Date.UTC(2025, 0, 1), end: Date.UTC(2025, 0, 1) } },
    ]);
    expect(outcome?.kind).toBe('created');
    // This process's table as an instance has it that loaded it before the code was added.
    const inner = directoryStore();
    useDirectoryStore({ ...inner, codes: { ...inner.codes, list: async () => (await inner.codes.list()).filter((c) => c.id !== code.id) } });
    forgetCodeTable();
    expect((await search(token, `patient=${world.patient.id}&code=omh:heart-rate:2.0`)).status).toBe(200);
    useDirectoryStore(inner);
    const stats = await call('GET', `/FHIR/R5/Observation/$stats?subject=Patient/${world.patient.id}&code=${encodeURIComponent(code.code)}&system=${encodeURIComponent(SYSTEM)}&period=2024-01-01/2026-01-01&statistic=count`, { token });
    expect(stats.status).toBe(200);
    // A code whose readings hold no values: one statistics Observation coded as its readings, a count of 0.
    expect(stats.json.parameter).toEqual([
      {
        name: 'statistics',
        resource: expect.objectContaining({
          code: { coding: [{ system: SYSTEM, code: code.code, display: 'Added elsewhere' }] },
          component: [{ code: { coding: [{ system: 'http://hl7.org/fhir/observation-statistics', code: 'count', display: 'Count' }] }, valueQuantity: { value: 0, system: 'http://unitsofmeasure.org', code: '1' } }],
        }),
      },
    ]);
    const found = await search(token, `code=${encodeURIComponent(`${SYSTEM}|${code.code}`)}`);
    expect(found.status).toBe(200);
    expect(matchIds(found)).toHaveLength(1);
  });

  it('does not reload the table for every request naming a code nobody has', async () => {
    const world = await observationWorld();
    const listed = countListings();
    for (let i = 0; i < 5; i += 1) {
      const res = await search(world.patient.token, `code=${encodeURIComponent(`${SYSTEM}|nobody-${i}`)}`);
      expect(res.status).toBe(200);
      expect(matchIds(res)).toEqual([]);
    }
    expect(listed()).toBeLessThanOrEqual(1);
  });
});
