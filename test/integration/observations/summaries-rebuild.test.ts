/**
 * Rebuilding every patient's day summaries on layout 3 (`npm run migrate:observations --
 * summaries`, docs/operations.md#rebuilding-the-day-summaries), on DynamoDB Local: summaries a fault
 * left missing or wrong are recomputed from the readings, for every patient with readings (found
 * by their `#SPAN` item), by a run stopped after its first page and resumed; a second run writes
 * nothing.
 */
import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../../shared/config';
import { rebuildSummaries } from '../../../shared/observations/stats/keep';
import { freshRebuild, rebuildEverySummary, type RebuildProgress } from '../../../shared/observations/store/summaries-rebuild';
import { dynamo } from '../../../shared/store/clients';
import { call } from '../../support/invoke';
import { observation, observationWorld, statusesOf, upload, type ObservationWorld } from '../../support/observations';

const DAY = Date.UTC(2026, 9, 5);
let alice: ObservationWorld;
let bob: ObservationWorld;

const summaries = async (patientId: number) =>
  (
    await dynamo().send(
      new QueryCommand({
        TableName: config().observationsTable,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :day)',
        ExpressionAttributeValues: { ':pk': `P#${patientId}`, ':day': '#DAY#' },
        ConsistentRead: true,
      }),
    )
  ).Items ?? [];

const stats = async (world: ObservationWorld) => {
  const res = await call('GET', `/FHIR/R5/Observation/$stats?subject=Patient/${world.patient.id}&code=omh:heart-rate:2.0&period=2026-10-05/2026-10-05&statistic=count,maximum`, { token: world.patient.token });
  expect(res.status).toBe(200);
  return res.json.parameter[0].resource.component.map((c: { valueQuantity: { value: number } }) => c.valueQuantity.value);
};

beforeAll(async () => {
  alice = await observationWorld();
  bob = await observationWorld();
  for (const [world, rates] of [[alice, [58, 134, 71, 122]], [bob, [90, 95]]] as const) {
    const res = await upload(world.patient.token, rates.map((bpm, i) => observation(world, { code: 'omh:heart-rate:2.0', at: DAY + i * 3_600_000, form: 'date_time', members: { heart_rate: { value: bpm, unit: 'beats/min' } } })));
    expect(new Set(statusesOf(res))).toEqual(new Set(['201 Created']));
  }
});

describe('rebuilding every day summary', () => {
  it('recomputes missing and wrong summaries of every patient, stopped after its first page and resumed', async () => {
    const [kept] = await summaries(alice.patient.id);
    expect(kept).toBeDefined();
    // A fault left Alice's day counting one reading, and Bob's day without a summary.
    await dynamo().send(new UpdateCommand({ TableName: config().observationsTable, Key: { pk: kept!.pk, sk: kept!.sk }, UpdateExpression: 'SET readings = :one', ExpressionAttributeValues: { ':one': 1 } }));
    for (const item of await summaries(bob.patient.id)) await dynamo().send(new DeleteCommand({ TableName: config().observationsTable, Key: { pk: item.pk, sk: item.sk } }));
    expect(await stats(bob)).toEqual([0]);

    let saved: RebuildProgress | undefined;
    const stop = new Error('the operator pressed Ctrl-C');
    const stopped = rebuildEverySummary(rebuildSummaries, {
      progress: freshRebuild(1),
      pageSize: 1,
      save: (p) => {
        saved = p;
        if (p.patients > 0) throw stop;
      },
    });
    await expect(stopped).rejects.toBe(stop);
    expect(saved!.patients).toBe(1);
    expect(saved!.segments[0]!.done).toBe(false);
    const resumed = await rebuildEverySummary(rebuildSummaries, { progress: saved!, pageSize: 1 });
    expect(resumed.segments[0]!.done).toBe(true);
    expect(resumed.patients).toBe(2);
    expect(resumed.repaired).toBe(2);
    expect(await stats(alice)).toEqual([4, 134]);
    expect(await stats(bob)).toEqual([2, 95]);
  });

  it('a second run writes nothing', async () => {
    const before = [...(await summaries(alice.patient.id)), ...(await summaries(bob.patient.id))];
    const again = await rebuildEverySummary(rebuildSummaries);
    expect(again.patients).toBe(2);
    expect(again.days).toBe(2);
    expect(again.repaired).toBe(0);
    expect([...(await summaries(alice.patient.id)), ...(await summaries(bob.patient.id))]).toEqual(before);
  });
});
