/**
 * A device's retry costs no more than its first try: readings already stored are found by their
 * claims before anything is written, and answer 200 with the id they have. A lookup that misses them
 * (a race, a failed read) leaves the conditional claim to refuse a second reading, as before.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { injectFault, recordCommands, throttling, type SentCommand } from '../../support/faults';
import { call } from '../../support/invoke';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../../shared/config';
import { STALE_CLAIM_MS } from '../../../shared/observations/store/block-write';
import { dynamo } from '../../../shared/store/clients';
import { idsOf, observation, observationWorld, statusesOf, storedClaims, storedRows, upload, type ObservationWorld } from '../../support/observations';

let world: ObservationWorld;
let remove: (() => void) | undefined;
beforeAll(async () => {
  world = await observationWorld();
});
afterEach(() => {
  remove?.();
  remove = undefined;
});

const readings = (n: number) => Array.from({ length: n }, (_, i) => observation(world, { uuid: randomUUID(), at: Date.UTC(2025, 6, 1, 0, i) }));

const uuidOf = (resource: unknown): string => JSON.parse(Buffer.from((resource as { valueAttachment: { data: string } }).valueAttachment.data, 'base64').toString('utf8')).header.uuid;

/** Readings whose upload stopped after their claims, before their block (the block's put and taking the claims back both fail), and their claims. */
async function leftClaimed(n: number) {
  const batch = readings(n);
  remove = injectFault(async (command, send) => {
    if (command.name === 'PutItemCommand' && String(command.input.Item?.sk).startsWith('B#')) throw throttling();
    if (command.name === 'DeleteItemCommand') throw throttling();
    return send();
  });
  const first = await upload(world.patient.token, batch);
  expect(statusesOf(first)).toEqual(batch.map(() => '503 Service Unavailable'));
  remove();
  remove = undefined;
  const uuids = new Set(batch.map(uuidOf));
  const ours = (await storedClaims(world.patient.id)).filter((c) => uuids.has(String(c.sk).slice(2)));
  expect(ours).toHaveLength(n);
  return { batch, ours };
}

/** The same reading (its uuid) with another heart rate. */
function withValue(resource: unknown, value: number): Record<string, unknown> {
  const r = resource as { valueAttachment: { data: string } };
  const payload = JSON.parse(Buffer.from(r.valueAttachment.data, 'base64').toString('utf8'));
  payload.body.heart_rate.value = value;
  return { ...r, valueAttachment: { ...r.valueAttachment, data: Buffer.from(JSON.stringify(payload)).toString('base64') } };
}

/** Moves a claim's time of storing back by `ms`. */
async function ageClaim(claim: Record<string, unknown>, ms: number): Promise<void> {
  const at = new Date(Date.parse(String(claim.at)) - ms).toISOString();
  await dynamo().send(new UpdateCommand({ TableName: config().observationsTable, Key: { pk: claim.pk, sk: claim.sk }, UpdateExpression: 'SET #at = :at', ExpressionAttributeNames: { '#at': 'at' }, ExpressionAttributeValues: { ':at': at } }));
}

const WRITES = /^(PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems)Command$/;
const writesOf = (commands: SentCommand[]) => commands.filter((c) => WRITES.test(c.name)).map((c) => c.name);

/** The commands an upload sends, and its answer. */
async function recorded(resources: readonly unknown[]) {
  const recording = recordCommands();
  try {
    const res = await upload(world.patient.token, resources);
    return { res, commands: recording.commands };
  } finally {
    recording.stop();
  }
}

describe('re-posting stored readings', () => {
  it('sends no write command and answers 200 with the ids they have', async () => {
    const batch = readings(150);
    const first = await upload(world.patient.token, batch);
    const rows = (await storedRows(world.patient.id)).length;
    const { res, commands } = await recorded(batch);
    expect(writesOf(commands)).toEqual([]);
    expect(statusesOf(res).every((s) => s === '200 OK')).toBe(true);
    expect(idsOf(res)).toEqual(idsOf(first));
    expect((await storedRows(world.patient.id)).length).toBe(rows);
  });

  it('stored and new readings in one batch: only the new ones are written', async () => {
    const stored = readings(3);
    const first = await upload(world.patient.token, stored);
    const fresh = readings(2);
    const { res, commands } = await recorded([stored[0], fresh[0], stored[1], fresh[1], stored[2]]);
    expect(statusesOf(res)).toEqual(['200 OK', '201 Created', '200 OK', '201 Created', '200 OK']);
    expect([idsOf(res)[0], idsOf(res)[2], idsOf(res)[4]]).toEqual(idsOf(first));
    const rowPuts = [
      ...commands.filter((c) => c.name === 'TransactWriteItemsCommand').flatMap((c) => (c.input.TransactItems as Array<{ Put: { Item: { sk: string } } }>).map((action) => action.Put.Item.sk)),
      ...commands.filter((c) => c.name === 'PutItemCommand').map((c) => (c.input.Item as { sk: string }).sk),
    ].filter((sk) => sk.startsWith('U#'));
    expect(rowPuts.sort()).toEqual(fresh.map((r) => `U#${uuidOf(r)}`).sort());
    // Nothing to take back either: nothing of the stored ones was written.
    const deletes = commands.filter((c) => c.name === 'BatchWriteItemCommand').flatMap((c) => Object.values(c.input.RequestItems as Record<string, Array<{ DeleteRequest?: unknown }>>).flat()).filter((r) => r.DeleteRequest);
    expect(deletes).toEqual([]);
  });
});

/** Answers (or fails) every lookup of readings by row key with `fault`; returns how many it met. */
function onRowLookups(fault: () => Record<string, unknown>): { met: number } {
  const seen = { met: 0 };
  remove = injectFault(async (command, send) => {
    const keys = command.name === 'BatchGetItemCommand' ? Object.values(command.input.RequestItems as Record<string, { Keys: Array<{ sk: string }> }>)[0]!.Keys : [];
    if (!keys.some((k) => k.sk.startsWith('U#'))) return send();
    seen.met += 1;
    return fault();
  });
  return seen;
}

describe('a lookup that does not find them still ends in one row', () => {
  it('the lookup answering nothing (as when it races the first write): 200 with the first id', async () => {
    const batch = readings(4);
    const first = await upload(world.patient.token, batch);
    const rows = (await storedRows(world.patient.id)).length;
    const lookups = onRowLookups(() => ({ Responses: {} }));
    const again = await upload(world.patient.token, batch);
    expect(lookups.met).toBe(1);
    expect(statusesOf(again)).toEqual(['200 OK', '200 OK', '200 OK', '200 OK']);
    expect(idsOf(again)).toEqual(idsOf(first));
    expect((await storedRows(world.patient.id)).length).toBe(rows);
  });

  it('claims an upload left behind when it stopped before its block: the re-send of the same readings finishes them under the claimed ids', async () => {
    const { batch, ours } = await leftClaimed(3);
    const rows = (await storedRows(world.patient.id)).length;
    const again = await upload(world.patient.token, batch);
    expect(statusesOf(again)).toEqual(['200 OK', '200 OK', '200 OK']);
    expect(idsOf(again).map(Number).sort()).toEqual(ours.map((c) => Number(c.id)).sort());
    for (const id of idsOf(again)) expect((await call('GET', `/FHIR/R5/Observation/${id}`, { token: world.patient.token })).status, id).toBe(200);
    expect((await storedRows(world.patient.id)).length).toBe(rows + 3);
    expect(statusesOf(await upload(world.patient.token, batch))).toEqual(['200 OK', '200 OK', '200 OK']);
  });

  it('another payload under a left-behind claim: 503 while the upload that claimed it could still be running; once the claim is stale, stored once', async () => {
    const { batch, ours } = await leftClaimed(2);
    // The same uuids, other values: another reading, not a re-send.
    const changed = batch.map((resource) => withValue(resource, 99));
    expect(statusesOf(await upload(world.patient.token, changed))).toEqual(['503 Service Unavailable', '503 Service Unavailable']);
    for (const claim of ours) await ageClaim(claim, STALE_CLAIM_MS + 1000);
    const rows = (await storedRows(world.patient.id)).length;
    const stored = await upload(world.patient.token, changed);
    expect(statusesOf(stored)).toEqual(['201 Created', '201 Created']);
    expect((await storedRows(world.patient.id)).length).toBe(rows + 2);
    expect(statusesOf(await upload(world.patient.token, batch))).toEqual(['200 OK', '200 OK']);
  });

  it('the lookup failing: the readings are still stored once', async () => {
    const batch = readings(3);
    const lookups = onRowLookups(() => {
      throw Object.assign(new Error('The provided key element does not match the schema'), { name: 'ValidationException', $metadata: { httpStatusCode: 400 } });
    });
    const rows = (await storedRows(world.patient.id)).length;
    const first = await upload(world.patient.token, batch);
    const again = await upload(world.patient.token, batch);
    expect(lookups.met).toBe(2);
    expect(statusesOf(first)).toEqual(['201 Created', '201 Created', '201 Created']);
    expect(statusesOf(again)).toEqual(['200 OK', '200 OK', '200 OK']);
    expect(idsOf(again)).toEqual(idsOf(first));
    expect((await storedRows(world.patient.id)).length).toBe(rows + 3);
  });
});
