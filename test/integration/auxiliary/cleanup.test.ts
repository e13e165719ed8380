/**
 * Deleting a FHIR Source's or a patient's auxiliary rows (for the `/api/v1/` deletions): every
 * item of every row and every body in S3, nothing of anyone else, idempotently; and once the
 * source record is gone no write can land through it, even one that passed its checks before.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { deleteAuxiliaryRowsOfPatient, deleteAuxiliaryRowsOfSource } from '../../../shared/auxiliary/cleanup';
import { INLINE_BODY_LIMIT } from '../../../shared/auxiliary/store/dynamo-items';
import { persistNew } from '../../../shared/auxiliary/persist';
import { deleteFhirSource } from '../../../shared/directory/fhir-sources';
import { auxiliaryItems, auxiliaryWorld, bucketKeys, condition, postAuxiliary, type AuxiliaryWorld } from '../../support/auxiliary';
import { makeDataSource, makeFhirSource } from '../../support/directory';
import { call } from '../../support/invoke';

let w: AuxiliaryWorld;
beforeAll(async () => {
  w = await auxiliaryWorld();
});

const big = () => condition({ note: [{ text: 'b'.repeat(INLINE_BODY_LIMIT + 10) }] });

/** A few rows (two with an id, one large) through a source; returns their ids. */
async function fill(token: string, sourceId: number): Promise<string[]> {
  const bodies = [condition({ id: 'u1' }), condition({ id: 'u2' }), big(), { resourceType: 'Location', name: 'Clinic' }];
  const ids: string[] = [];
  for (const body of bodies) ids.push((await postAuxiliary(String(body.resourceType), body, token, sourceId)).json.id);
  return ids;
}

const itemsOfIds = async (ids: readonly string[]) => (await auxiliaryItems()).filter((i) => ids.includes(String(i.id)));

describe('deleteAuxiliaryRowsOfSource', () => {
  it("deletes the source's rows (all their items) and bodies, and nothing else; again is a no-op", async () => {
    const second = await makeFhirSource({ patient: w.alice, dataSource: await makeDataSource() });
    const doomed = await fill(w.alice.token, w.aliceSource.id);
    const kept = [...(await fill(w.alice.token, second.id)), ...(await fill(w.bob.token, w.bobSource.id))];
    expect(await itemsOfIds(doomed)).toHaveLength(4 * 2 + 2);
    expect((await bucketKeys()).filter((k) => k.startsWith(`aux/${w.alice.id}/${w.aliceSource.id}/`))).toHaveLength(1);
    const keptBefore = await itemsOfIds(kept);
    const objectsBefore = await bucketKeys();

    expect(await deleteAuxiliaryRowsOfSource(w.aliceSource.id)).toEqual({ rows: 4, bodies: 1 });
    expect(await itemsOfIds(doomed)).toEqual([]);
    expect(await itemsOfIds(kept)).toEqual(keptBefore);
    expect(await bucketKeys()).toEqual(objectsBefore.filter((k) => !k.startsWith(`aux/${w.alice.id}/${w.aliceSource.id}/`)));
    for (const id of doomed) expect((await call('GET', `/FHIR/R5/Condition/${id}`, { token: w.alice.token })).status).toBe(404);
    // The upstream ids are free again.
    expect((await postAuxiliary('Condition', condition({ id: 'u1' }), w.alice.token, w.aliceSource.id)).status).toBe(201);

    expect(await deleteAuxiliaryRowsOfSource(w.aliceSource.id)).toEqual({ rows: 1, bodies: 0 });
    expect(await deleteAuxiliaryRowsOfSource(w.aliceSource.id)).toEqual({ rows: 0, bodies: 0 });
  });

  it('works after the source record is deleted (given its patient), and then no write lands through it', async () => {
    const source = await makeFhirSource({ patient: w.bob, dataSource: await makeDataSource() });
    const ids = await fill(w.bob.token, source.id);
    await deleteFhirSource(source.id);
    await expect(deleteAuxiliaryRowsOfSource(source.id)).rejects.toThrow(/pass its patient id/);
    expect(await deleteAuxiliaryRowsOfSource(source.id, w.bob.id)).toEqual({ rows: 4, bodies: 1 });
    expect(await itemsOfIds(ids)).toEqual([]);

    expect((await postAuxiliary('Condition', condition(), w.bob.token, source.id)).status).toBe(400);
    // A write that checked the source before it was deleted still fails at commit, and leaves no body behind.
    const objects = await bucketKeys();
    const items = await auxiliaryItems();
    await expect(persistNew({ id: crypto.randomUUID(), type: 'Condition', patientId: w.bob.id, sourceId: source.id }, big(), 'http://x')).rejects.toMatchObject({
      status: 400,
    });
    expect(await auxiliaryItems()).toEqual(items);
    expect(await bucketKeys()).toEqual(objects);
  });
});

describe('deleteAuxiliaryRowsOfPatient', () => {
  it("deletes every row and body of the patient across their sources, and nobody else's", async () => {
    const other = await makeFhirSource({ patient: w.bob, dataSource: await makeDataSource() });
    const bobs = [...(await fill(w.bob.token, w.bobSource.id)), ...(await fill(w.bob.token, other.id))];
    const alices = await fill(w.alice.token, w.aliceSource.id);
    const alicesBefore = await itemsOfIds(alices);
    const deletion = await deleteAuxiliaryRowsOfPatient(w.bob.id);
    expect(deletion.rows).toBeGreaterThanOrEqual(8);
    expect(deletion.bodies).toBeGreaterThanOrEqual(2);
    expect(await itemsOfIds(bobs)).toEqual([]);
    expect((await auxiliaryItems()).filter((i) => i.patientId === w.bob.id)).toEqual([]);
    expect((await bucketKeys()).filter((k) => k.startsWith(`aux/${w.bob.id}/`))).toEqual([]);
    expect(await itemsOfIds(alices)).toEqual(alicesBefore);
    expect(await deleteAuxiliaryRowsOfPatient(w.bob.id)).toEqual({ rows: 0, bodies: 0 });
    // No upstream claim of Bob's sources is left: each upstream id creates a new row again.
    for (const source of [w.bobSource.id, other.id]) {
      for (const upstream of ['u1', 'u2']) expect((await postAuxiliary('Condition', condition({ id: upstream }), w.bob.token, source)).status).toBe(201);
    }
  });
});
