/**
 * The move from layout 2 (a row per reading, local indexes, id pointers) to layout 3 (blocks), on
 * DynamoDB Local: a layout-2 table is written with the layout-2 codec as an earlier version left
 * it (rows with and without values, identifiers, undated readings, a period, several codes and
 * hours, two patients, an upload's consecutive ids, span statistics, day summaries, id pointers, the
 * values migration's marker, a claim without a reading), while the service already writes layout 3
 * (a re-post of a layout-2 reading, a new reading on a summarised day, an identifier taken). The
 * move runs stopped after its first page and resumed; then every reading reads back by its id
 * byte for byte, is found in date and last-update order, keeps its identifiers, answers a re-post
 * with its id, has its values (and `$stats` counts them); the counts say what happened, the
 * mismatch is listed, and a second run copies nothing. A local data folder made before layout 3
 * (or before layout 2) is moved by `npm start`.
 */
import { CreateTableCommand, DeleteTableCommand, DynamoDBClient, waitUntilTableExists, waitUntilTableNotExists } from '@aws-sdk/client-dynamodb';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { upgradeObservationsTable } from '../../../local/upgrade-tables';
import { readProgress, writeProgress } from '../../../scripts/progress-file';
import { config, resetConfig } from '../../../shared/config';
import { liftEffectiveTime } from '../../../shared/omh/effective-time';
import { encodePayload, samplePayload, type EffectiveForm } from '../../../shared/omh/samples';
import { codeByCoding } from '../../../shared/observations/code-table-cache';
import { layoutMigrationSteps } from '../../../shared/observations/layout-migration';
import type { ObservationIdentifier, StoredObservation } from '../../../shared/observations/model';
import { readObservation } from '../../../shared/observations/read';
import { spanBucket, spanOf, storedSpans } from '../../../shared/observations/span-stats';
import { summariseDay } from '../../../shared/observations/stats/day-summary';
import { pointedIds } from '../../../shared/observations/store/block-pointers';
import { newIds } from '../../../shared/observations/store/block-write';
import { toItem } from '../../../shared/observations/store/dynamo-items';
import { observationKeys } from '../../../shared/observations/store/dynamo-keys';
import { dynamoSummaryStore } from '../../../shared/observations/store/dynamo-summaries';
import { freshMigration, migrateToLayout3, migrationReport, type MigrationProgress } from '../../../shared/observations/store/layout-3-migration';
import { claimKey } from '../../../shared/observations/store/rounds';
import { keptValuesOfStored } from '../../../shared/observations/values';
import { batchWriteAll } from '../../../shared/store/batch';
import { createTableInput, OBSERVATIONS_LAYOUT_1, OBSERVATIONS_LAYOUT_2 } from '../../../shared/store/tables';
import { call } from '../../support/invoke';
import { tableItems } from '../../support/store';
import { idsOf, matchIds, observationWorld, search, statusesOf, systemOf, upload, type ObservationWorld } from '../../support/observations';

const HR = 'omh:heart-rate:2.0';
const WEIGHT = 'omh:body-weight:3.0';
const RR = 'omh:rr-interval:1.0';
const STEPS = 'omh:step-count:3.0';
const DAY1 = Date.UTC(2025, 2, 1);
const DAY2 = Date.UTC(2025, 2, 2);
const HOUR = 3_600_000;

const layout2 = () => `${config().resourcePrefix}${OBSERVATIONS_LAYOUT_2.name}`;
const layout1 = () => `${config().resourcePrefix}${OBSERVATIONS_LAYOUT_1.name}`;
const byKey = (items: Record<string, unknown>[]) => new Map(items.map((i) => [`${i.pk}|${i.sk}`, i]));

interface Spec {
  world: ObservationWorld;
  code: string;
  at?: number;
  form?: EffectiveForm;
  spanMinutes?: number;
  members?: Record<string, unknown>;
  identifiers?: ObservationIdentifier[];
  status?: string;
  /** Stored before values were lifted: the row has none. */
  old?: boolean;
  /** Base64 text that is not what encoding its bytes gives (no padding): kept as text. */
  unpadded?: boolean;
}

/** A reading as an earlier version stored it, and the resource a device uploaded. */
interface Fixture {
  stored: StoredObservation;
  resource: Record<string, unknown>;
}

function payloadText(spec: Spec): string {
  const payload = samplePayload(spec.code, { ...(spec.at !== undefined ? { at: spec.at, form: spec.form ?? 'date_time' } : {}), ...(spec.spanMinutes ? { spanMinutes: spec.spanMinutes } : {}) }) as { body: Record<string, unknown> };
  if (spec.at === undefined) delete payload.body.effective_time_frame;
  Object.assign(payload.body, spec.members);
  if (!spec.unpadded) return encodePayload(payload);
  // Pad the JSON until its Base64 ends in '=', then leave the padding out.
  let json = JSON.stringify(payload);
  while (!Buffer.from(json).toString('base64').endsWith('=')) json += ' ';
  return Buffer.from(json).toString('base64').replace(/=+$/, '');
}

/** One upload of an earlier version: consecutive ids, one time of storing. */
async function storedUpload(lastUpdated: string, specs: Spec[]): Promise<Fixture[]> {
  const ids = await newIds(specs.length);
  return Promise.all(
    specs.map(async (spec, i) => {
      const data = payloadText(spec);
      const body = JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as { header: { uuid: string }; body: unknown };
      const code = (await codeByCoding(systemOf(spec.code), spec.code))!;
      const stored: StoredObservation = {
        id: ids[i]!,
        patientId: spec.world.patient.id,
        codeId: code.id,
        deviceId: spec.world.device.id,
        status: spec.status ?? 'final',
        identifiers: spec.identifiers ?? [],
        data,
        uuid: body.header.uuid.toLowerCase(),
        effective: liftEffectiveTime(body.body),
        lastUpdated,
      };
      if (!spec.old) stored.values = keptValuesOfStored(stored, spec.code);
      const resource = {
        resourceType: 'Observation',
        status: stored.status,
        ...(stored.identifiers.length > 0 ? { identifier: stored.identifiers } : {}),
        code: { coding: [{ system: systemOf(spec.code), code: spec.code }] },
        subject: { reference: `Patient/${stored.patientId}` },
        device: { reference: `Device/${stored.deviceId}` },
        valueAttachment: { contentType: 'application/json', data },
      };
      return { stored, resource };
    }),
  );
}

/** The layout-2 items of readings: rows, id pointers, identifier claims. */
const layout2Items = (fixtures: readonly Fixture[]) =>
  fixtures.flatMap(({ stored: o }) => [
    toItem(o),
    { ...observationKeys.pointer(o.id), patientId: o.patientId, uuid: o.uuid },
    ...o.identifiers.map((i) => ({ ...claimKey(i), id: o.id, patientId: o.patientId })),
  ]);

async function createTable(definition: typeof OBSERVATIONS_LAYOUT_2, name: string) {
  const raw = new DynamoDBClient({});
  try {
    await raw.send(new CreateTableCommand(createTableInput(definition, name)));
    await waitUntilTableExists({ client: raw, maxWaitTime: 60, minDelay: 1 }, { TableName: name });
  } finally {
    raw.destroy();
  }
}

/** Day summaries as an earlier version kept them in its own table (the summary store writes to the configured table). */
async function keepSummariesIn(tableName: string, summaries: Parameters<typeof dynamoSummaryStore.keep>[0][]) {
  process.env.OBSERVATIONS_TABLE = tableName;
  resetConfig();
  try {
    for (const s of summaries) expect(await dynamoSummaryStore.keep(s, 'repair')).toBe(true);
  } finally {
    delete process.env.OBSERVATIONS_TABLE;
    resetConfig();
  }
}

const stats = async (world: ObservationWorld, code: string, day: string) => {
  const res = await call('GET', `/FHIR/R5/Observation/$stats?subject=Patient/${world.patient.id}&code=${code}&period=${day}/${day}&statistic=count,maximum`, { token: world.patient.token });
  expect(res.status).toBe(200);
  return res.json.parameter[0].resource.component.map((c: { valueQuantity: { value: number } }) => c.valueQuantity.value);
};

let alice: ObservationWorld;
let bob: ObservationWorld;
let first: Fixture[];
let second: Fixture[];
let third: Fixture[];
let bobs: Fixture[];
/** Every reading of the layout-2 table. */
let all: Fixture[];
/** Stored again by the service before the move: layout 3 holds it under a new id. */
let reposted: Fixture;
let repostedId: string;
/** Its identifier taken by another reading in layout 3 before the move: the move cannot store it. */
let refused: Fixture;
let takenBy: string;
/** A reading the service stored meanwhile on a day layout 2 summarised. */
let freshId: string;
let beforeMove: Map<string, Record<string, unknown>>;
let done: MigrationProgress;

beforeAll(async () => {
  alice = await observationWorld();
  bob = await observationWorld();
  first = await storedUpload('2025-03-01T10:00:00.000Z', Array.from({ length: 6 }, (_, h) => ({ world: alice, code: HR, at: DAY1 + h * HOUR, members: { heart_rate: { value: 60 + h, unit: 'beats/min' } } })));
  second = await storedUpload('2025-03-02T10:00:00.000Z', [
    ...[58, 134, 71, 122].map((bpm, h) => ({ world: alice, code: HR, at: DAY2 + h * HOUR, members: { heart_rate: { value: bpm, unit: 'beats/min' } }, old: true })),
    { world: alice, code: WEIGHT, at: DAY2, members: { body_weight: { value: 154.3, unit: 'lb' } }, old: true, unpadded: true },
  ]);
  third = await storedUpload('2025-03-03T10:00:00.000Z', [
    { world: alice, code: RR, identifiers: [{ system: 'urn:test:move', value: 'undated-1' }] },
    { world: alice, code: HR, at: DAY1 + 20 * HOUR, form: 'start_end', spanMinutes: 600, status: 'amended' },
    { world: alice, code: HR, at: DAY1 + 21 * HOUR, identifiers: [{ system: 'urn:test:move', value: 'taken' }] },
  ]);
  bobs = await storedUpload('2025-03-01T11:00:00.000Z', [
    { world: bob, code: HR, at: DAY1 },
    { world: bob, code: STEPS, at: DAY1 + HOUR, form: 'start_end' },
    { world: bob, code: HR, at: DAY2, identifiers: [{ system: 'urn:test:move', value: 'bob-1' }] },
  ]);
  all = [...first, ...second, ...third, ...bobs];
  reposted = second[0]!;
  refused = third[2]!;

  await createTable(OBSERVATIONS_LAYOUT_2, layout2());
  const period = third[1]!.stored;
  expect(period.effective?.kind).toBe('period');
  expect(third[0]!.stored.effective).toBeUndefined();
  expect(second[4]!.stored.data.endsWith('=')).toBe(false);
  const extras = [
    // Alice's span statistics (Bob has none: he is found by his rows), the values migration's marker, a claim without a reading.
    { ...observationKeys.spanStats(alice.patient.id), maxSpan: spanBucket(spanOf(period.effective)) },
    { pk: '#MIGRATION', sk: 'values', at: '2025-03-03T00:00:00.000Z' },
    { ...claimKey({ system: 'urn:test:move', value: 'no-reading' }), id: 999_999_999, patientId: alice.patient.id },
  ];
  expect(await batchWriteAll(layout2(), [...layout2Items(all), ...extras].map((Item) => ({ PutRequest: { Item } })))).toEqual([]);
  const hr = (await codeByCoding(systemOf(HR), HR))!;
  await keepSummariesIn(layout2(), [
    summariseDay({ patientId: alice.patient.id, codeId: hr.id, day: '2025-03-01' }, first.map((f) => f.stored), HR),
    summariseDay({ patientId: bob.patient.id, codeId: hr.id, day: '2025-03-01' }, [bobs[0]!.stored], HR),
  ]);

  // Meanwhile the service writes layout 3: a device sends a layout-2 reading again, another reading
  // on a summarised day, and a reading taking an identifier a layout-2 reading holds.
  const res = await upload(alice.patient.token, [
    reposted.resource,
    { ...first[0]!.resource, valueAttachment: { contentType: 'application/json', data: payloadText({ world: alice, code: HR, at: DAY1 + 6 * HOUR, members: { heart_rate: { value: 150, unit: 'beats/min' } } }) } },
    { ...first[0]!.resource, identifier: refused.stored.identifiers, valueAttachment: { contentType: 'application/json', data: payloadText({ world: alice, code: HR, at: DAY1 + 22 * HOUR }) } },
  ]);
  expect(statusesOf(res)).toEqual(['201 Created', '201 Created', '201 Created']);
  repostedId = idsOf(res)[0]!;
  freshId = idsOf(res)[1]!;
  takenBy = idsOf(res)[2]!;
  expect(Number(repostedId)).not.toBe(reposted.stored.id);
  beforeMove = byKey(await tableItems(config().observationsTable));
});

describe('moving layout 2 into layout 3', () => {
  it('a migration stopped and resumed: stopped after its first page, it resumes from its progress to the same end', async () => {
    const steps = await layoutMigrationSteps();
    let saved: MigrationProgress | undefined;
    const stop = new Error('the operator pressed Ctrl-C');
    const stopped = migrateToLayout3({
      steps,
      progress: freshMigration(layout2(), { segments: 1, lanes: 1 }),
      pageSize: 3,
      save: (p) => {
        saved = p;
        if (p.counts.copied > 0) throw stop;
      },
    });
    await expect(stopped).rejects.toBe(stop);
    expect(saved!.stage).toBe('copying');
    expect(saved!.patients).toEqual([alice.patient.id, bob.patient.id].sort((a, b) => a - b));
    expect(saved!.counts.copied).toBe(3);
    expect(saved!.lanes[0]!.current?.start).toBeDefined();

    done = await migrateToLayout3({ steps, progress: saved!, pageSize: 3, save: (p) => void (saved = p) });
    expect(done.stage).toBe('done');
    expect(saved).toEqual(done);
    expect(done.counts).toEqual({
      patients: 2,
      readings: all.length,
      copied: all.length - 2,
      present: 0,
      lifted: second.length - 1,
      renamed: 1,
      mismatches: 1,
      summaries: 1,
      refreshed: 1,
      claims: 1,
    });
    expect(done.renamed).toEqual([{ patientId: alice.patient.id, from: reposted.stored.id, to: Number(repostedId) }]);
    expect(done.mismatches).toEqual([{ patientId: alice.patient.id, id: refused.stored.id, reason: `its identifier urn:test:move|taken is held by observation ${takenBy}` }]);
    const report = migrationReport(done).join('\n');
    expect(report).toContain(`${all.length - 2} copied (${second.length - 1} given their values)`);
    expect(report).toContain(`mismatch: patient ${alice.patient.id}, observation ${refused.stored.id}`);
  });

  it('leaves the id pointers and the marker behind, copies the claim without a reading, and writes nothing over what the service wrote', async () => {
    const items = await tableItems(config().observationsTable);
    expect(items.filter((i) => String(i.pk).startsWith('O#') || i.pk === '#MIGRATION')).toEqual([]);
    expect(byKey(items).get(`${claimKey({ system: 'urn:test:move', value: 'no-reading' }).pk}|I`)).toMatchObject({ id: 999_999_999 });
    const after = byKey(items);
    for (const [key, item] of beforeMove) {
      if (String(item.sk).startsWith('U#') || String(item.pk).startsWith('I#')) expect(after.get(key), key).toEqual(item);
    }
  });

  it('keeps an upload\'s consecutive ids together: one id range per page of them', async () => {
    const ranges = (await tableItems(config().observationsTable)).filter((i) => String(i.pk).startsWith('R#') && i.p === alice.patient.id).map((i) => pointedIds(i).map((p) => p.id));
    const firstIds = first.map((f) => f.stored.id);
    const holding = ranges.filter((ids) => ids.some((id) => firstIds.includes(id))).sort((a, b) => a[0]! - b[0]!);
    expect(holding).toEqual([firstIds.slice(0, 3), firstIds.slice(3)]);
  });

  it('reads every reading back by its id, byte for byte, with its time of storing, identifiers, status and effective time', async () => {
    for (const { stored, resource } of all.filter((f) => f !== reposted && f !== refused)) {
      const world = stored.patientId === alice.patient.id ? alice : bob;
      const res = await call('GET', `/FHIR/R5/Observation/${stored.id}`, { token: world.patient.token });
      expect(res.status, String(stored.id)).toBe(200);
      expect(res.json.valueAttachment.data).toBe(stored.data);
      expect(res.json.meta.lastUpdated).toBe(stored.lastUpdated);
      expect(res.json.status).toBe(stored.status);
      expect(res.json.identifier ?? []).toEqual(resource.identifier ?? []);
      expect(res.json.device.reference).toBe(`Device/${stored.deviceId}`);
      const read = await readObservation(stored.id);
      expect(read?.effective).toEqual(stored.effective);
      expect(read?.uuid).toBe(stored.uuid);
    }
    expect((await readObservation(third[1]!.stored.id))?.effective?.kind).toBe('period');
    // The reading stored again meanwhile keeps the id its upload gave it; the one refused is not there.
    expect((await call('GET', `/FHIR/R5/Observation/${reposted.stored.id}`, { token: alice.patient.token })).status).toBe(404);
    expect((await call('GET', `/FHIR/R5/Observation/${repostedId}`, { token: alice.patient.token })).json.valueAttachment.data).toBe(reposted.stored.data);
    expect((await call('GET', `/FHIR/R5/Observation/${refused.stored.id}`, { token: alice.patient.token })).status).toBe(404);
    expect((await storedSpans([alice.patient.id])).get(alice.patient.id)).toBe(spanBucket(spanOf(third[1]!.stored.effective)));
  });

  it('finds the readings in date order and in order of last update', async () => {
    const moved = new Set(all.filter((f) => f !== reposted && f !== refused).map((f) => String(f.stored.id)));
    const byDate = matchIds(await search(alice.patient.token, '_sort=date&_count=100')).filter((id) => moved.has(id));
    const aliceMoved = all.filter((f) => moved.has(String(f.stored.id)) && f.stored.patientId === alice.patient.id).map((f) => f.stored);
    const expectedByDate = [...aliceMoved].sort((a, b) => (a.effective && b.effective ? a.effective.start - b.effective.start || a.id - b.id : a.effective ? -1 : b.effective ? 1 : a.id - b.id));
    expect(byDate).toEqual(expectedByDate.map((o) => String(o.id)));
    const byUpdate = matchIds(await search(alice.patient.token, '_sort=_lastUpdated&_count=100')).filter((id) => moved.has(id));
    expect(byUpdate).toEqual([...aliceMoved].sort((a, b) => a.lastUpdated.localeCompare(b.lastUpdated) || a.id - b.id).map((o) => String(o.id)));
    expect(matchIds(await search(bob.patient.token, 'code=omh:step-count:3.0'))).toEqual([String(bobs[1]!.stored.id)]);
  });

  it('gives the readings stored before values were lifted their values, and $stats counts them', async () => {
    for (const { stored } of second.slice(1)) expect((await readObservation(stored.id))?.values).toEqual(keptValuesOfStored(stored, stored.codeId === second[4]!.stored.codeId ? WEIGHT : HR));
    expect(matchIds(await search(alice.patient.token, 'code=omh:heart-rate:2.0&value-quantity=gt120')).sort()).toEqual([...[second[1], second[3]].map((f) => String(f!.stored.id)), freshId].sort());
    // The day layout 2 kept no summary of (its readings had no values), rebuilt; the day the service summarised meanwhile, recomputed.
    expect(await stats(alice, HR, '2025-03-02')).toEqual([4, 134]);
    expect(await stats(alice, HR, '2025-03-01')).toEqual([first.length + 3, 150]);
    expect(await stats(bob, HR, '2025-03-01')).toEqual([1, 58]);
  });

  it('a second run copies nothing and writes nothing', async () => {
    const before = byKey(await tableItems(config().observationsTable));
    const again = await migrateToLayout3({ steps: await layoutMigrationSteps(), progress: freshMigration(layout2(), { segments: 2, lanes: 2 }) });
    expect(again.counts).toEqual({ ...done.counts, copied: 0, present: all.length - 2, lifted: 0, summaries: 0, refreshed: 0, claims: 0 });
    expect(byKey(await tableItems(config().observationsTable))).toEqual(before);
  });

  it('a re-post of a moved reading answers 200 with its id; its identifiers still refuse a second holder', async () => {
    const again = await upload(bob.patient.token, [bobs[2]!.resource]);
    expect(statusesOf(again)).toEqual(['200 OK']);
    expect(idsOf(again)).toEqual([String(bobs[2]!.stored.id)]);
    const other = { ...bobs[0]!.resource, identifier: bobs[2]!.stored.identifiers, valueAttachment: { contentType: 'application/json', data: payloadText({ world: bob, code: HR, at: DAY2 + HOUR }) } };
    expect(statusesOf(await upload(bob.patient.token, [other]))).toEqual(['409 Conflict']);
    const undated = await upload(alice.patient.token, [third[0]!.resource]);
    expect(idsOf(undated)).toEqual([String(third[0]!.stored.id)]);
  });
});

describe('a local data folder made before layout 3', () => {
  const folder = () => join(mkdtempSync(join(tmpdir(), 'cdx-move-')), 'migrate-observations.json');

  it('is moved once, when npm start has just created the layout-3 table beside it', async () => {
    const [later] = await storedUpload('2025-03-04T10:00:00.000Z', [{ world: alice, code: HR, at: DAY2 + 5 * HOUR, old: true }]);
    expect(await batchWriteAll(layout2(), layout2Items([later!]).map((Item) => ({ PutRequest: { Item } })))).toEqual([]);
    const raw = new DynamoDBClient({});
    try {
      expect(await upgradeObservationsTable(raw, [], folder())).toBeUndefined();
      expect(await readObservation(later!.stored.id)).toBeUndefined();
      const report = await upgradeObservationsTable(raw, [config().observationsTable], folder());
      expect(report?.[0]).toContain('1 copied (1 given their values)');
      expect((await readObservation(later!.stored.id))?.data).toBe(later!.stored.data);
    } finally {
      raw.destroy();
    }
  });

  it('finishes a move a stopped start began, at the next start', async () => {
    const file = folder();
    const raw = new DynamoDBClient({});
    try {
      await expect(
        migrateToLayout3({
          steps: await layoutMigrationSteps(),
          progress: freshMigration(layout2()),
          save: (p) => {
            if (p.stage === 'copying') throw new Error('stopped');
            writeProgress(file, p);
          },
        }),
      ).rejects.toThrow('stopped');
      expect(readProgress<MigrationProgress>(file)?.stage).toBe('finding');
      const report = await upgradeObservationsTable(raw, [], file);
      expect(report?.[0]).toContain(`${all.length + 1} readings checked: 0 copied`);
    } finally {
      raw.destroy();
    }
  });

  it('made before layout 2, is moved from the layout-1 table', async () => {
    const raw = new DynamoDBClient({});
    try {
      await raw.send(new DeleteTableCommand({ TableName: layout2() }));
      await waitUntilTableNotExists({ client: raw, maxWaitTime: 60, minDelay: 1 }, { TableName: layout2() });
      await createTable(OBSERVATIONS_LAYOUT_1, layout1());
      const [older] = await storedUpload('2024-01-01T10:00:00.000Z', [{ world: bob, code: HR, at: Date.UTC(2024, 0, 1), form: 'start_end', old: true }]);
      // Layout 1 kept the payload as text and repeated what layout 2 leaves out.
      const o = older!.stored;
      const row = { ...toItem(o), data: o.data, uuid: o.uuid, lastUpdated: o.lastUpdated, status: o.status, effKind: o.effective!.kind, effStart: o.effective!.start, effEnd: o.effective!.end };
      expect(await batchWriteAll(layout1(), [{ PutRequest: { Item: row } }])).toEqual([]);
      const report = await upgradeObservationsTable(raw, [config().observationsTable], folder());
      expect(report?.join('\n')).toContain('1 copied (1 given their values)');
      expect(report?.join('\n')).toContain('0 mismatches');
      const read = await readObservation(o.id);
      expect(read?.data).toBe(o.data);
      expect(read?.effective).toEqual(o.effective);
      expect(read?.values).toEqual(keptValuesOfStored(o, HR));
    } finally {
      raw.destroy();
    }
  });
});
