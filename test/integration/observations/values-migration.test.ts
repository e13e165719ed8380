/**
 * Readings stored before values were lifted gain them (docs/operations.md#lifting-the-values-of-stored-readings),
 * on DynamoDB Local: rows made "old" by removing their values and their patient's day summaries
 * are found by the migration's Scan, given exactly the values their payloads hold, and their
 * patient's summaries are rebuilt; a second run changes nothing; a run stopped part-way resumes
 * from its saved position to the same end; the table is marked done.
 */
import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../../shared/config';
import { freshValuesProgress, migrateValues, valuesLifted, type ValuesProgress } from '../../../shared/observations/store/dynamo-values-migration';
import { valuesMigrationSteps } from '../../../shared/observations/values-migration';
import { dynamo } from '../../../shared/store/clients';
import { call } from '../../support/invoke';
import { matchIds, observation, observationWorld, search, upload, type ObservationWorld } from '../../support/observations';

let world: ObservationWorld;
const DAY = Date.UTC(2026, 9, 5);

async function rows(patientId: number): Promise<Array<Record<string, unknown>>> {
  const out = await dynamo().send(
    new QueryCommand({ TableName: config().observationsTable, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `P#${patientId}` }, ConsistentRead: true }),
  );
  return out.Items ?? [];
}

/** Makes the patient's readings look stored before values were lifted: no values on the rows, no day summaries. */
async function makeOld(patientId: number): Promise<void> {
  for (const item of await rows(patientId)) {
    const key = { pk: item.pk, sk: item.sk };
    if (String(item.sk).startsWith('U#')) {
      await dynamo().send(new UpdateCommand({ TableName: config().observationsTable, Key: key, UpdateExpression: 'REMOVE q' }));
    } else if (String(item.sk).startsWith('#DAY#')) {
      await dynamo().send(new DeleteCommand({ TableName: config().observationsTable, Key: key }));
    }
  }
  await dynamo().send(new DeleteCommand({ TableName: config().observationsTable, Key: { pk: '#MIGRATION', sk: 'values' } }));
}

const statsCount = async () => {
  const res = await call('GET', `/FHIR/R5/Observation/$stats?subject=Patient/${world.patient.id}&code=omh:heart-rate:2.0&period=2026-10-05/2026-10-05&statistic=count,maximum`, { token: world.patient.token });
  expect(res.status).toBe(200);
  return res.json.parameter[0].resource.component.map((c: { valueQuantity: { value: number } }) => c.valueQuantity.value);
};

beforeAll(async () => {
  world = await observationWorld();
  const readings = [58, 134, 71, 122].map((bpm, i) =>
    observation(world, { code: 'omh:heart-rate:2.0', at: DAY + i * 3_600_000, form: 'date_time', members: { heart_rate: { value: bpm, unit: 'beats/min' } } }),
  );
  const res = await upload(world.patient.token, [...readings, observation(world, { code: 'omh:body-weight:3.0', at: DAY, form: 'date_time', members: { body_weight: { value: 154.3, unit: 'lb' } } })]);
  expect(res.json.entry.every((e: { response: { status: string } }) => e.response.status === '201 Created')).toBe(true);
});

describe('lifting the values of stored readings', () => {
  it('gives old readings exactly the values their payloads hold, rebuilds the summaries, and marks the table', async () => {
    const lifted = Object.fromEntries((await rows(world.patient.id)).filter((i) => String(i.sk).startsWith('U#')).map((i) => [i.sk, i.q]));
    expect(Object.values(lifted)).toEqual(expect.arrayContaining(['0:134', '0:154.3:lb']));
    await makeOld(world.patient.id);
    expect(matchIds(await search(world.patient.token, 'value-quantity=gt120'))).toEqual([]);
    expect(await valuesLifted()).toBe(false);

    const done = await migrateValues(await valuesMigrationSteps());
    expect(done.lifted).toBeGreaterThanOrEqual(5);
    expect(done.patients).toContain(world.patient.id);
    const after = Object.fromEntries((await rows(world.patient.id)).filter((i) => String(i.sk).startsWith('U#')).map((i) => [i.sk, i.q]));
    expect(after).toEqual(lifted);
    expect(matchIds(await search(world.patient.token, 'code=omh:heart-rate:2.0&value-quantity=gt120')).length).toBe(2);
    expect(await statsCount()).toEqual([4, 134]);
    expect(await valuesLifted()).toBe(true);

    // Again: nothing left to lift.
    await dynamo().send(new DeleteCommand({ TableName: config().observationsTable, Key: { pk: '#MIGRATION', sk: 'values' } }));
    expect((await migrateValues(await valuesMigrationSteps())).lifted).toBe(0);
  });

  it('a run stopped part-way resumes from its saved position to the same end', async () => {
    await makeOld(world.patient.id);
    let saved: ValuesProgress | undefined;
    let saves = 0;
    const steps = await valuesMigrationSteps();
    const stopped = migrateValues({
      ...steps,
      progress: freshValuesProgress(4),
      save: (progress) => {
        if (++saves === 2) throw new Error('the operator pressed Ctrl-C');
        saved = progress;
      },
    });
    await expect(stopped).rejects.toThrow('Ctrl-C');
    expect(saved).toBeDefined();
    const resumed = await migrateValues({ ...steps, progress: saved!, save: (progress) => void (saved = progress) });
    expect(resumed.segments.every((s) => s.done)).toBe(true);
    expect(resumed.rebuilt).toBe(resumed.patients.length);
    expect(matchIds(await search(world.patient.token, 'code=omh:heart-rate:2.0&value-quantity=gt120')).length).toBe(2);
    expect(await statsCount()).toEqual([4, 134]);
  });

  it('with everyone, rebuilds the summaries of patients whose readings all have values (the repair)', async () => {
    for (const item of await rows(world.patient.id)) {
      if (String(item.sk).startsWith('#DAY#')) await dynamo().send(new DeleteCommand({ TableName: config().observationsTable, Key: { pk: item.pk, sk: item.sk } }));
    }
    expect(await statsCount()).toEqual([0]);
    expect((await migrateValues(await valuesMigrationSteps())).patients).toEqual([]); // nothing to lift: no rebuild
    const repaired = await migrateValues({ ...(await valuesMigrationSteps()), progress: freshValuesProgress(2, true) });
    expect(repaired.lifted).toBe(0);
    expect(repaired.patients).toContain(world.patient.id);
    expect(await statsCount()).toEqual([4, 134]);
  });
});
