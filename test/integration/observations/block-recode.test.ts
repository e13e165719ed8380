/**
 * Rewriting blocks kept in an earlier format of the block codec (`npm run migrate:observations --
 * blocks`, docs/operations.md#rewriting-blocks-in-the-current-format), on DynamoDB Local: a block
 * of format 1 is rewritten in the current format holding exactly the same readings, by a run
 * stopped after its first page and resumed; blocks already current are left alone; a block changed
 * since it was read is not overwritten; a second run writes nothing.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { upgradeBlockFormat } from '../../../local/upgrade-tables';
import { describe, expect, it } from 'vitest';
import { config } from '../../../shared/config';
import { factsFormat } from '../../../shared/observations/store/block-codec';
import { readingsOfBlock, type BlockItem } from '../../../shared/observations/store/block-items';
import { blockKeys } from '../../../shared/observations/store/block-keys';
import { freshRecode, recodeBlock, recodeEveryBlock, type RecodeProgress } from '../../../shared/observations/store/block-recode';
import { dynamo } from '../../../shared/store/clients';
import { FORMAT_1_BLOCK } from '../../fixtures/block-format-1';
import { observation, observationWorld, statusesOf, upload } from '../../support/observations';

const REF = { codeId: 7, stretch: '2025-01-01T05' };

/** The fixture's block as an item of a patient, at version 3. */
function format1Item(patientId: number): BlockItem {
  const { c, u, z, readings } = FORMAT_1_BLOCK;
  return { ...blockKeys.block(patientId, REF, 0), ver: 3, n: readings.length, c: Buffer.from(c, 'base64'), u: Buffer.from(u, 'base64'), z: Buffer.from(z, 'base64') };
}

const stored = async (patientId: number): Promise<BlockItem> =>
  (await dynamo().send(new GetCommand({ TableName: config().observationsTable, Key: blockKeys.block(patientId, REF, 0), ConsistentRead: true }))).Item!;

describe('rewriting blocks in the current format', () => {
  it('rewrites every block of an earlier format with the same readings, stopped after its first page and resumed; current blocks are left alone', async () => {
    const world = await observationWorld();
    const res = await upload(world.patient.token, [observation(world, { code: 'omh:heart-rate:2.0', at: Date.UTC(2026, 0, 1), form: 'date_time', members: { heart_rate: { value: 61, unit: 'beats/min' } } })]);
    expect(statusesOf(res)).toEqual(['201 Created']);
    const patients = [990_001, 990_002];
    for (const patientId of patients) await dynamo().send(new PutCommand({ TableName: config().observationsTable, Item: format1Item(patientId) }));
    const before = new Map(patients.map((p) => [p, readingsOfBlock(format1Item(p), p)]));
    expect(before.get(patients[0]!)!.map((r) => r.id).sort()).toEqual([1000, 1001, 1002, 1003, 1004, 1005]);

    let saved: RecodeProgress | undefined;
    const stop = new Error('the operator pressed Ctrl-C');
    const stopped = recodeEveryBlock({
      progress: freshRecode(1),
      pageSize: 1,
      save: (p) => {
        saved = p;
        if (p.blocks > 0) throw stop;
      },
    });
    await expect(stopped).rejects.toBe(stop);
    expect(saved!.segments[0]!.done).toBe(false);
    const resumed = await recodeEveryBlock({ progress: saved!, pageSize: 1 });
    expect(resumed.segments[0]!.done).toBe(true);
    expect(resumed.rewritten).toBe(2);
    expect(resumed.current).toBeGreaterThanOrEqual(1);
    expect(resumed.mismatches + resumed.changedMeanwhile).toBe(0);
    expect(resumed.blocks).toBe(resumed.rewritten + resumed.current);

    for (const patientId of patients) {
      const item = await stored(patientId);
      expect(factsFormat(item.c as Uint8Array)).toBe('current');
      expect(item.ver).toBe(4);
      expect(readingsOfBlock(item, patientId)).toEqual(before.get(patientId));
      expect((item.z as Uint8Array).byteLength).toBeLessThan(Buffer.from(FORMAT_1_BLOCK.z, 'base64').byteLength);
    }
    const again = await recodeEveryBlock({ progress: freshRecode(2) });
    expect(again.rewritten).toBe(0);
    expect(again.current).toBe(again.blocks);
  });

  it('does not overwrite a block changed since it was read', async () => {
    const patientId = 990_003;
    await dynamo().send(new PutCommand({ TableName: config().observationsTable, Item: format1Item(patientId) }));
    expect(await recodeBlock({ ...format1Item(patientId), ver: 2 })).toBe('changedMeanwhile');
    const item = await stored(patientId);
    expect([factsFormat(item.c as Uint8Array), item.ver]).toEqual(['earlier', 3]);
  });

  it('runs once for a local data folder: a table created just now needs none, a folder kept before rewrites its blocks at the next start', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'recode-'));
    const table = config().observationsTable;
    expect(await upgradeBlockFormat([table], join(folder, 'created.json'))).toBeUndefined();
    expect(JSON.parse(readFileSync(join(folder, 'created.json'), 'utf8')).segments).toEqual([{ done: true }]);

    const patientId = 990_004;
    await dynamo().send(new PutCommand({ TableName: table, Item: format1Item(patientId) }));
    const report = await upgradeBlockFormat([], join(folder, 'kept.json'));
    expect(report?.[0]).toMatch(/^\d+ blocks read: [1-9]\d* rewritten in format 2/);
    expect(factsFormat((await stored(patientId)).c as Uint8Array)).toBe('current');
    await dynamo().send(new PutCommand({ TableName: table, Item: format1Item(patientId) }));
    expect(await upgradeBlockFormat([], join(folder, 'kept.json'))).toBeUndefined();
    expect(factsFormat((await stored(patientId)).c as Uint8Array)).toBe('earlier');
  });
});
