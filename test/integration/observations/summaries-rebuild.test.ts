/**
 * Rebuilding every patient's day summaries on layout 3 (`npm run migrate:observations --
 * summaries`, docs/operations.md#rebuilding-the-day-summaries), on DynamoDB Local: summaries a fault
 * left missing or wrong are recomputed from the readings, for every patient with readings (found
 * by their `#SPAN` item), by a run stopped after its first page and resumed; a second run writes
 * nothing. A blood glucose's summary kept before value groups kept the specimen answers with the
 * codes of no specimen, and the rebuild adds the specimen.
 */
import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../../shared/config';
import { mergeGroups } from '../../../shared/observations/stats/day-summary';
import { rebuildSummaries } from '../../../shared/observations/stats/keep';
import { keysOf } from '../../../shared/observations/store/dynamo-summaries';
import { summaryStore } from '../../../shared/observations/store/summary-current';
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

describe('a summary kept before value groups kept the specimen', () => {
  const GLUCOSE = 'omh:blood-glucose:4.0';
  /** The LOINC code of each statistics Observation of the day, with its count. */
  const glucoseCounts = async (world: ObservationWorld) => {
    const res = await call('GET', `/FHIR/R5/Observation/$stats?subject=Patient/${world.patient.id}&code=${GLUCOSE}&period=2026-10-06/2026-10-06&statistic=count`, { token: world.patient.token });
    expect(res.status).toBe(200);
    const observations = res.json.parameter.map((p: { resource: Record<string, any> }) => p.resource);
    return new Map(observations.map((o: Record<string, any>) => [o.code.coding[1].code, o.component[0].valueQuantity.value]));
  };
  /** The specimen field of each value group's text (percent-encoded; undefined: none). */
  const specimens = (item: Record<string, any>) => (item.g as string[]).map((text) => text.split(';')[8]);

  it('answers with the codes of no specimen, and the rebuild adds the specimen', async () => {
    const carol = await observationWorld();
    const readings = [
      [106, 'mg/dL', 'capillary blood'],
      [5.9, 'mmol/L', 'capillary blood'],
      [120, 'mg/dL', 'interstitial fluid'],
      [6.7, 'mmol/L', 'interstitial fluid'],
    ] as const;
    const res = await upload(
      carol.patient.token,
      readings.map(([value, unit, specimen], i) =>
        observation(carol, { code: GLUCOSE, at: Date.UTC(2026, 9, 6) + i * 60_000, form: 'date_time', members: { blood_glucose: { value, unit }, specimen_source: specimen } }),
      ),
    );
    expect(new Set(statusesOf(res))).toEqual(new Set(['201 Created']));
    const [kept] = await summaries(carol.patient.id);
    expect(specimens(kept!)).toEqual(['capillary%20blood', 'interstitial%20fluid', 'capillary%20blood', 'interstitial%20fluid']);
    const each = new Map([['14743-9', 1], ['105272-9', 1], ['41653-7', 1], ['99504-3', 1]]);
    expect(await glucoseCounts(carol)).toEqual(each);

    // The day as it was kept before: its groups without the specimen, and so one per unit.
    const { codeId, day } = keysOf(kept!);
    const current = (await summaryStore().day(carol.patient.id, codeId, day))!;
    expect(await summaryStore().keep({ ...current, groups: mergeGroups(current.groups.map(({ specimen: _specimen, ...group }) => group)) }, 'repair')).toBe(true);
    expect(specimens((await summaries(carol.patient.id))[0]!)).toEqual([undefined, undefined]);
    expect(await glucoseCounts(carol)).toEqual(new Map([['15074-8', 2], ['2339-0', 2]]));

    expect(await rebuildSummaries(carol.patient.id)).toEqual({ days: 1, repaired: 1 });
    const [rebuilt] = await summaries(carol.patient.id);
    expect(specimens(rebuilt!)).toEqual(specimens(kept!));
    expect(await glucoseCounts(carol)).toEqual(each);
  });
});
