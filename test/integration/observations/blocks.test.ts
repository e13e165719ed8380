/**
 * What only the blocks layout has (the contract suite holds both adapters to the same readings):
 * two writers of one stretch meet in its version condition and both land, a stretch outgrows one
 * block into segments of bounded size, and deleting a patient leaves nothing of theirs behind.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { config } from '../../../shared/config';
import { deletePatientObservations } from '../../../shared/observations/delete';
import type { StoredObservation } from '../../../shared/observations/model';
import { readObservation } from '../../../shared/observations/read';
import { blockBytes, idsOfStretch, SEGMENT_BYTES } from '../../../shared/observations/store/block-items';
import { blockOf, stretchOf } from '../../../shared/observations/store/block-keys';
import { stretchItems } from '../../../shared/observations/store/block-reads';
import { writeStretch } from '../../../shared/observations/store/block-write';
import { storeObservations } from '../../../shared/observations/write';
import { injectFault } from '../../support/faults';
import { tableItems } from '../../support/store';

const T0 = Date.UTC(2025, 8, 1, 10);
let remove: (() => void) | undefined;
afterEach(() => {
  remove?.();
  remove = undefined;
});

function reading(patientId: number, minute: number, data?: string, over: Partial<StoredObservation> = {}): StoredObservation {
  const uuid = randomUUID();
  const start = T0 + minute * 60_000;
  return {
    id: 5_000_000 + randomInt(1_000_000_000),
    patientId,
    codeId: 4,
    deviceId: 1,
    status: 'final',
    identifiers: [],
    data: data ?? Buffer.from(`{"header":{"uuid":"${uuid}"},"body":{"heart_rate":{"value":${60 + minute},"unit":"beats/min"}}}`).toString('base64'),
    uuid,
    effective: { kind: 'dateTime', start, end: start },
    lastUpdated: new Date().toISOString(),
    values: [{ member: 0, value: 60 + minute }],
    ...over,
  };
}

/** Counts the block puts the version condition refused from now on. */
function countRefusedBlockPuts(): { refused: () => number } {
  let refused = 0;
  remove = injectFault(async (command, send) => {
    try {
      return await send();
    } catch (e) {
      if (e instanceof ConditionalCheckFailedException && command.name === 'PutItemCommand' && String(command.input.Item?.sk).startsWith('B#')) refused += 1;
      throw e;
    }
  });
  return { refused: () => refused };
}

describe('blocks', () => {
  it('two writers of one stretch at once (two processes): one meets the version condition, reads again and merges; every reading lands once', async () => {
    const patientId = 900_000_000 + randomInt(1_000_000);
    const ref = { codeId: 4, stretch: stretchOf(T0) };
    const counter = countRefusedBlockPuts();
    const writers = [0, 1, 2, 3].map((w) => Array.from({ length: 15 }, (_, i) => reading(patientId, w * 15 + i)));
    const placed = await Promise.all(writers.map((readings) => writeStretch(patientId, ref, readings)));
    writers.forEach((readings, w) => expect([...placed[w]!].sort()).toEqual(readings.map((r) => r.id).sort()));
    expect(counter.refused()).toBeGreaterThan(0);
    const items = await stretchItems(patientId, ref);
    expect(items).toHaveLength(1);
    expect(idsOfStretch(items, patientId)).toEqual(new Set(writers.flat().map((r) => r.id)));
  });

  it('a stretch that outgrows a block goes on in segments, each within its size but for a single reading larger than it', async () => {
    const patientId = 900_000_000 + randomInt(1_000_000);
    const ref = { codeId: 4, stretch: stretchOf(T0) };
    const large = Array.from({ length: 20 }, (_, i) => reading(patientId, i, randomBytes(9_000).toString('base64')));
    const huge = reading(patientId, 30, randomBytes(60_000).toString('base64'));
    for (let i = 0; i < large.length; i += 4) await writeStretch(patientId, ref, large.slice(i, i + 4));
    await writeStretch(patientId, ref, [huge]);
    const items = await stretchItems(patientId, ref);
    expect(items.length).toBeGreaterThan(3);
    const segments = items.map((item) => blockOf(String(item.sk)).segment);
    expect(segments).toEqual(segments.map((_, i) => i));
    for (const item of items) {
      const ids = idsOfStretch([item], patientId);
      if (!ids.has(huge.id)) expect(blockBytes(item)).toBeLessThanOrEqual(SEGMENT_BYTES);
    }
    expect(idsOfStretch(items, patientId)).toEqual(new Set([...large, huge].map((r) => r.id)));
  });

  it("deleting a patient leaves none of their items: blocks, claims, log, ranges, span and code set, identifier claims", async () => {
    const patientId = 900_000_000 + randomInt(1_000_000);
    const identifier = { system: 'urn:test:blocks', value: randomUUID() };
    const readings = Array.from({ length: 30 }, (_, i) => ({ ...reading(patientId, i * 7), id: 0, lastUpdated: '', ...(i === 3 ? { identifiers: [identifier] } : {}) }));
    const outcomes = await storeObservations(readings.map(({ id: _i, lastUpdated: _l, ...r }) => r));
    expect(outcomes.every((o) => o.kind === 'created')).toBe(true);
    const ids = outcomes.map((o) => (o as Extract<typeof o, { kind: 'created' }>).observation.id);
    const ofPatient = (items: Record<string, unknown>[]) =>
      items.filter((i) => i.pk === `P#${patientId}` ? !String(i.sk).startsWith('#DAY#') : i.p === patientId || (String(i.pk).startsWith('I#') && ids.includes(Number(i.id))));
    expect(ofPatient(await tableItems(config().observationsTable)).length).toBeGreaterThan(30);
    expect(await deletePatientObservations(patientId)).toBe(30);
    expect(ofPatient(await tableItems(config().observationsTable))).toEqual([]);
    expect(await readObservation(ids[0]!)).toBeUndefined();
  });
});
