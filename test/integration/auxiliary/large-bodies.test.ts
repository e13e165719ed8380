/**
 * Bodies too large for a DynamoDB item live in S3, transparently: create, read, search, update
 * (to a small body and back) and delete keep the table and the bucket in step, and a commit the
 * store refuses (injected) leaves neither half behind.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { INLINE_BODY_LIMIT } from '../../../shared/auxiliary/store/dynamo-items';
import { dynamo } from '../../../shared/store/clients';
import { auxiliaryItems, auxiliaryWorld, bucketKeys, condition, postAuxiliary, type AuxiliaryWorld } from '../../support/auxiliary';
import { throttling } from '../../support/faults';
import { call } from '../../support/invoke';

let w: AuxiliaryWorld;
beforeAll(async () => {
  w = await auxiliaryWorld();
});

const large = (extra: Record<string, unknown> = {}) => condition({ note: [{ text: 'n'.repeat(INLINE_BODY_LIMIT + 1000) }], ...extra });

const resourceItem = async (id: string) => (await auxiliaryItems()).find((i) => i.pk === `R#${id}`);

/** Makes the next `TransactWriteItems` of the service's client fail, as a store that stays throttled would. */
function failNextTransaction(): void {
  const stack = dynamo().middlewareStack;
  stack.add(
    (next, context) => async (args) => {
      if (context.commandName?.startsWith('TransactWrite')) {
        stack.remove('fail-next-transaction');
        throw throttling();
      }
      return next(args);
    },
    { step: 'initialize', name: 'fail-next-transaction' },
  );
}
afterEach(() => {
  dynamo().middlewareStack.remove('fail-next-transaction');
});

describe('large bodies', () => {
  it('go to S3 with a pointer in the table, and come back whole on read and search', async () => {
    const created = await postAuxiliary('Condition', large({ id: 'big-1' }), w.alice.token, w.aliceSource.id);
    expect(created.status).toBe(201);
    const id = created.json.id;
    const [key] = (await bucketKeys()).filter((k) => k.startsWith(`aux/${w.alice.id}/${w.aliceSource.id}/${id}/1.`));
    expect(key).toMatch(/\/1\.[\w-]+\.json$/);
    const item = await resourceItem(id);
    expect(item).toMatchObject({ bodyKey: key });
    expect(item!.body).toBeUndefined();
    expect((await auxiliaryItems()).find((i) => String(i.pk).startsWith('P#') && i.id === id)).toMatchObject({ bodyKey: key });

    const read = await call('GET', `/FHIR/R5/Condition/${id}`, { token: w.alice.token });
    expect(read.status).toBe(200);
    expect(read.json).toEqual(created.json);
    expect(read.json.note[0].text).toHaveLength(INLINE_BODY_LIMIT + 1000);

    const found = await call('GET', `/FHIR/R5/Condition?_id=${id}`, { token: w.doctor.token });
    expect(found.json.entry[0].resource).toEqual(created.json);
  });

  it('move in and out of S3 as updates change their size; the old object goes once the table moved on', async () => {
    const id = (await postAuxiliary('Condition', large(), w.alice.token, w.aliceSource.id)).json.id;
    const prefix = `aux/${w.alice.id}/${w.aliceSource.id}/${id}/`;
    const objects = async () => (await bucketKeys()).filter((k) => k.startsWith(prefix));
    expect(await objects()).toEqual([expect.stringMatching(/\/1\.[\w-]+\.json$/)]);

    const small = await call('PUT', `/FHIR/R5/Condition/${id}`, { token: w.alice.token, body: condition({ id }) });
    expect(small.status).toBe(200);
    expect(await objects()).toEqual([]);
    expect(typeof (await resourceItem(id))!.body).toBe('string');

    const big = await call('PUT', `/FHIR/R5/Condition/${id}`, { token: w.alice.token, body: large({ id }) });
    expect(big.status).toBe(200);
    expect(await objects()).toEqual([expect.stringMatching(/\/3\.[\w-]+\.json$/)]);
    const patched = await call('PATCH', `/FHIR/R5/Condition/${id}`, { token: w.alice.token, body: { severity: { text: 'mild' } } });
    expect(patched.json.note[0].text).toHaveLength(INLINE_BODY_LIMIT + 1000);
    expect(await objects()).toEqual([expect.stringMatching(/\/4\.[\w-]+\.json$/)]);

    expect((await call('DELETE', `/FHIR/R5/Condition/${id}`, { token: w.alice.token })).status).toBe(204);
    expect(await objects()).toEqual([]);
    expect(await resourceItem(id)).toBeUndefined();
  });

  it('a failed commit of a new row deletes the object it had written: nothing is left in either store', async () => {
    const [items, objects] = [await auxiliaryItems(), await bucketKeys()];
    failNextTransaction();
    const res = await postAuxiliary('Condition', large(), w.alice.token, w.aliceSource.id);
    expect(res.status).toBe(503);
    expect(await auxiliaryItems()).toEqual(items);
    expect(await bucketKeys()).toEqual(objects);
  });

  it('a failed commit of an update keeps the previous version whole (row and object)', async () => {
    const created = await postAuxiliary('Condition', large(), w.alice.token, w.aliceSource.id);
    const id = created.json.id;
    const [items, objects] = [await auxiliaryItems(), await bucketKeys()];
    failNextTransaction();
    const res = await call('PUT', `/FHIR/R5/Condition/${id}`, { token: w.alice.token, body: large({ id, recordedDate: '2001-01-01' }) });
    expect(res.status).toBe(503);
    expect(await auxiliaryItems()).toEqual(items);
    expect(await bucketKeys()).toEqual(objects);
    expect((await call('GET', `/FHIR/R5/Condition/${id}`, { token: w.alice.token })).json).toEqual(created.json);
  });
});
