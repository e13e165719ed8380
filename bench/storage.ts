/**
 * What a reading costs to store and to read, priced by DynamoDB's published rules
 * (`shared/store/capacity.ts`): the FHIR handler uploads readings of several shapes into DynamoDB
 * Local, each shape one patient and one device sending uploads of `BENCH_STORAGE_BATCH` readings
 * (100 by default), at the spacing of real use (heart rates a minute apart, blood pressures three a
 * day, a sleep episode a night, ...), while every request to the observations table is recorded;
 * then a re-post of the first upload, a search page and a full download are recorded the same way.
 * `BENCH_STORAGE_SHAPES` (a comma-separated list of the shapes' keys, e.g. `heart-rate`) runs only
 * those shapes; `BENCH_STORAGE_READINGS` caps the readings of each.
 *
 * - write units per reading: from the requests sent (each item put, doubled inside a transaction,
 *   every rewrite of a block counted; a refused conditional put is charged too), the day summaries,
 *   the code set and the span included; read units per upload request the same way (of the
 *   observations table only: the caller's and the checks' reads of the directory are not counted);
 * - bytes stored per reading: from the table afterwards, what the patient's readings left (the
 *   patient's partition: blocks, uuid claims, update log, span and code set, day summaries; the id
 *   ranges naming the patient; their identifier claims), each item priced once with DynamoDB's 100
 *   bytes of overhead: a block rewritten three times is stored once, in its last form;
 * - read units per search page (20 rows, default order) and per row of a full download by code
 *   (1,000 a page), from the items the reads returned (the projections name every attribute of a
 *   block but the partition key).
 *
 * Targets (a heart-rate reading without an identifier, in uploads of 100: judged at that size only):
 * at most 2.0 write units and 600 bytes stored; a re-post of stored readings at most 0.1x the first
 * upload's write units.
 *
 * Prices (`BENCH_WRITE_PRICE`, `BENCH_READ_PRICE`, `BENCH_STORAGE_PRICE`): on-demand, US East, in
 * USD per million write request units, per million read request units and per GB-month.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall, type NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { startRuntime } from '../local/runtime';
import { config } from '../shared/config';
import type { Id } from '../shared/directory/model';
import { blockKeys } from '../shared/observations/store/block-keys';
import { encodePayload, samplePayload } from '../shared/omh/samples';
import { batchGetAll } from '../shared/store/batch';
import { itemReadUnits, queryReadUnits, storedBytes, writeUnits, type StoredItem } from '../shared/store/capacity';
import { dynamo } from '../shared/store/clients';
import { OBSERVATIONS } from '../shared/store/tables';
import { chunksOf } from '../shared/lists';
import { HOUR, invoke, postBatch, world, type World } from './observation-world';
import { printTable } from './table';

const READINGS = Number(process.env.BENCH_STORAGE_READINGS ?? 3000);
/** The upload size the targets are set for: 100 readings (1.3 MB of the 10 KB ones, within the 5 MB body limit). */
const TARGET_BATCH = 100;
const MINUTE = 60_000;
const WRITE_PRICE = Number(process.env.BENCH_WRITE_PRICE ?? 0.625);
const READ_PRICE = Number(process.env.BENCH_READ_PRICE ?? 0.125);
const STORAGE_PRICE = Number(process.env.BENCH_STORAGE_PRICE ?? 0.25);
/** A heart-rate reading without an identifier: at most this many write units and bytes stored; a re-post at most this share of a first upload's units. */
const TARGET = { writeUnits: 2.0, bytes: 600, repost: 0.1 };

/** A device's upload: `TARGET_BATCH` readings unless `BENCH_STORAGE_BATCH` asks otherwise (1 is a request a reading; a Bundle takes up to 1,000). */
function uploadSize(): number {
  const size = Number(process.env.BENCH_STORAGE_BATCH ?? TARGET_BATCH);
  if (!Number.isInteger(size) || size < 1 || size > 1000) throw new Error(`BENCH_STORAGE_BATCH must be a whole number from 1 to 1000, not ${process.env.BENCH_STORAGE_BATCH}`);
  return size;
}

/** The command that reproduces this run: the bench's own variables that are set, then the npm script. */
function commandLine(): string {
  const vars = Object.entries(process.env).filter(([name]) => name.startsWith('BENCH_'));
  return [...vars.map(([name, value]) => `${name}=${value}`), 'npm run bench -- storage'].join(' ');
}

/** What an item of the observations table is (layout 3, `block-keys.ts`): the meter's tallies are per kind. */
type Kind = 'blocks' | 'uuid claims' | 'id ranges' | 'update log' | 'day summaries' | 'span, code set' | 'identifier claims' | 'other';
const KINDS: readonly Kind[] = ['blocks', 'uuid claims', 'id ranges', 'update log', 'day summaries', 'span, code set', 'identifier claims', 'other'];

function kindOf(key: { pk?: unknown; sk?: unknown }): Kind {
  const pk = String(key.pk ?? '');
  const sk = String(key.sk ?? '');
  if (pk.startsWith('R#')) return 'id ranges';
  if (pk.startsWith('I#')) return 'identifier claims';
  if (sk.startsWith('B#')) return 'blocks';
  if (sk.startsWith('U#')) return 'uuid claims';
  if (sk.startsWith('L#')) return 'update log';
  if (sk.startsWith('#DAY#')) return 'day summaries';
  if (sk === '#SPAN') return 'span, code set';
  return 'other';
}

interface Meter {
  writeUnits: number;
  /** Write units by the kind of item written. */
  byKind: Map<Kind, number>;
  readUnits: number;
  /** Block puts refused by their version condition (another write of the stretch came first). */
  refused: number;
}

const meter: Meter = { writeUnits: 0, byKind: new Map(), readUnits: 0, refused: 0 };
const reset = () => Object.assign(meter, { writeUnits: 0, byKind: new Map(), readUnits: 0, refused: 0 });

type Marshalled = Record<string, AttributeValue>;
/** The meter sits where the document client has already converted some shapes: take either form. */
function native(item: Marshalled | StoredItem | undefined): StoredItem {
  if (!item) return {};
  try {
    return unmarshall(item as Marshalled) as Record<string, NativeAttributeValue>;
  } catch {
    return item as StoredItem;
  }
}

const ours = (tableName: string | undefined) => tableName === config().observationsTable;

function addWrite(key: StoredItem, units: number) {
  meter.writeUnits += units;
  const kind = kindOf(key);
  meter.byKind.set(kind, (meter.byKind.get(kind) ?? 0) + units);
}

function recordWrite(tableName: string | undefined, item: Marshalled | undefined, transactional: boolean) {
  if (!ours(tableName)) return;
  const n = native(item);
  addWrite(n, writeUnits(OBSERVATIONS, n, transactional));
}

/** An item an update or delete touches, whose body the request does not carry: a small item, 1 unit. */
function recordSmallWrite(tableName: string | undefined, key: Marshalled | undefined, transactional: boolean) {
  if (ours(tableName)) addWrite(native(key), transactional ? 2 : 1);
}

/** Prices a request to the observations table; `output` is undefined when it failed (a refused condition is still charged). */
function record(command: string, input: any, output: any) {
  switch (command) {
    case 'PutItemCommand':
      return recordWrite(input.TableName, input.Item, false);
    case 'UpdateItemCommand':
    case 'DeleteItemCommand':
      return recordSmallWrite(input.TableName, input.Key, false);
    case 'TransactWriteItemsCommand':
      for (const action of input.TransactItems ?? []) {
        if (action.Put) recordWrite(action.Put.TableName, action.Put.Item, true);
        else {
          const other = action.Update ?? action.Delete ?? action.ConditionCheck;
          recordSmallWrite(other?.TableName, other?.Key, true);
        }
      }
      return;
    case 'BatchWriteItemCommand':
      for (const [tableName, requests] of Object.entries(input.RequestItems ?? {}) as Array<[string, any[]]>) {
        for (const r of requests) {
          if (r.PutRequest) recordWrite(tableName, r.PutRequest.Item, false);
          else recordSmallWrite(tableName, r.DeleteRequest?.Key, false);
        }
      }
      return;
    case 'GetItemCommand':
      if (ours(input.TableName) && output) meter.readUnits += output.Item ? itemReadUnits([native(output.Item)], input.ConsistentRead) : 1;
      return;
    case 'BatchGetItemCommand':
      for (const [tableName, items] of Object.entries(output?.Responses ?? {}) as Array<[string, Marshalled[]]>) {
        const asked = input.RequestItems?.[tableName];
        if (!ours(tableName)) continue;
        const misses = (asked?.Keys?.length ?? 0) - items.length;
        meter.readUnits += itemReadUnits(items.map(native), asked?.ConsistentRead) + Math.max(0, misses) * (asked?.ConsistentRead ? 1 : 0.5);
      }
      return;
    case 'QueryCommand': {
      if (!ours(input.TableName) || !output) return;
      const items = (output.Items ?? []).map(native);
      meter.readUnits += input.Select === 'COUNT'
        ? Math.max(1, Math.ceil((output.ScannedCount ?? 0) * 200 / 4096)) / (input.ConsistentRead ? 1 : 2)
        : queryReadUnits(OBSERVATIONS, input.IndexName, items, { consistent: input.ConsistentRead });
      return;
    }
  }
}

const isBlockPut = (command: string, input: any) => command === 'PutItemCommand' && ours(input.TableName) && String(native(input.Item).sk ?? '').startsWith('B#');

let installed = false;
function installMeter() {
  if (installed) return;
  installed = true;
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      const command = String(context.commandName);
      let out: unknown;
      try {
        out = await next(args);
        return out as never;
      } catch (e) {
        if (isBlockPut(command, args.input) && (e as Error).name === 'ConditionalCheckFailedException') meter.refused += 1;
        throw e;
      } finally {
        try {
          record(command, args.input, (out as { output?: unknown } | undefined)?.output);
        } catch (e) {
          console.error('capacity meter', command, e);
        }
      }
    },
    { step: 'build', name: 'capacityMeter' },
  );
}

interface Shape {
  /** What `BENCH_STORAGE_SHAPES` names it by. */
  key: string;
  name: string;
  code: string;
  /** Time between two readings. */
  every: number;
  /** Notes added to the body (a large payload). */
  extra?: 'notes';
  identifier: boolean;
  /** Readings of this shape (`READINGS` by default; never more). */
  readings?: number;
}

/** About 9.6 KB of notes: numbers as a device's sample array writes them (a run of one letter would deflate to nothing). */
const notes = () => Array.from({ length: 2_400 }, () => 400 + Math.floor(Math.random() * 200)).join(' ');
/** Each shape as a device sends it: one patient's readings at the spacing of real use. */
const ALL_SHAPES: Shape[] = [
  { key: 'heart-rate', name: 'heart rate', code: 'omh:heart-rate:2.0', every: MINUTE, identifier: false },
  { key: 'heart-rate-identifier', name: 'heart rate + identifier', code: 'omh:heart-rate:2.0', every: MINUTE, identifier: true },
  { key: 'blood-pressure', name: 'blood pressure (3 a day)', code: 'omh:blood-pressure:4.0', every: 8 * HOUR, identifier: false, readings: 1000 },
  { key: 'sleep-episode', name: 'sleep episode (1 a night)', code: 'omh:sleep-episode:1.1', every: 24 * HOUR, identifier: false, readings: 1000 },
  { key: '10kb', name: '10 KB payload (hourly)', code: 'omh:heart-rate:2.0', every: HOUR, extra: 'notes', identifier: false, readings: 1000 },
  { key: '10kb-identifier', name: '10 KB payload + identifier (hourly)', code: 'omh:heart-rate:2.0', every: HOUR, extra: 'notes', identifier: true, readings: 1000 },
];

/** The shapes `BENCH_STORAGE_SHAPES` names (all by default), in the order above. */
function chosenShapes(): Shape[] {
  const asked = process.env.BENCH_STORAGE_SHAPES;
  if (!asked) return ALL_SHAPES;
  const keys = new Set(asked.split(',').map((k) => k.trim()));
  const unknown = [...keys].filter((k) => !ALL_SHAPES.some((s) => s.key === k));
  if (unknown.length > 0) throw new Error(`unknown BENCH_STORAGE_SHAPES ${unknown.join(', ')}; known: ${ALL_SHAPES.map((s) => s.key).join(', ')}`);
  return ALL_SHAPES.filter((s) => keys.has(s.key));
}

/** A heart rate as a wearable reports it (whole beats, varying): blocks compress what repeats, so a constant value would flatter them. */
const beats = () => 55 + Math.floor(Math.random() * 40);

function resourceOf(w: World, patientId: Id, shape: Shape, at: number) {
  const payload = samplePayload(shape.code, { at, ...(shape.code === 'omh:heart-rate:2.0' ? { form: 'date_time' as const } : {}) }) as { body: Record<string, unknown> };
  if (shape.code === 'omh:heart-rate:2.0') payload.body.heart_rate = { value: beats(), unit: 'beats/min' };
  if (shape.extra === 'notes') payload.body.user_notes = notes();
  const data = encodePayload(payload);
  return {
    resourceType: 'Observation',
    status: 'final',
    ...(shape.identifier ? { identifier: [{ system: 'https://device.example.org/readings', value: randomUUID() }] } : {}),
    code: { coding: [{ system: 'https://w3id.org/openmhealth', code: shape.code }] },
    subject: { reference: `Patient/${patientId}` },
    device: { reference: `Device/${w.device}` },
    valueAttachment: { contentType: 'application/json', data },
  };
}

const perMillion = (units: number, price: number) => `$${(units * price).toFixed(2)}`;

async function measure<T>(op: () => Promise<T>): Promise<Meter & { value: T }> {
  reset();
  const value = await op();
  return { ...meter, byKind: new Map(meter.byKind), value };
}

/** Every item of a partition, whole (a Query of its key, page by page). */
async function partition(pk: string): Promise<StoredItem[]> {
  const items: StoredItem[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await dynamo().send(new QueryCommand({ TableName: config().observationsTable, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true, ...(start ? { ExclusiveStartKey: start } : {}) }));
    items.push(...((out.Items ?? []) as StoredItem[]));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/**
 * What a patient's readings left in the table: their partition, the id-range items naming the
 * patient (in the range partitions of the ids their uuid claims hold) and the identifier claims of
 * `identifiers`; bytes stored per kind of item.
 */
async function storedBy(patientId: Id, identifiers: ReadonlyArray<{ system: string; value: string }>): Promise<Map<Kind, number>> {
  const own = await partition(blockKeys.patientPk(patientId));
  const ids = own.filter((i) => kindOf(i) === 'uuid claims').map((i) => Number(i.id));
  const rangePartitions = [...new Set(ids.map((id) => blockKeys.rangePk(id)))];
  const ranges = (await Promise.all(rangePartitions.map(partition))).flat().filter((i) => Number(i.p) === patientId);
  const claims = await batchGetAll(config().observationsTable, identifiers.map((i) => blockKeys.identifier(i.system, i.value)));
  const bytes = new Map<Kind, number>();
  for (const item of [...own, ...ranges, ...(claims as StoredItem[])]) bytes.set(kindOf(item), (bytes.get(kindOf(item)) ?? 0) + storedBytes(OBSERVATIONS, item));
  return bytes;
}

const sum = (m: ReadonlyMap<Kind, number>) => [...m.values()].reduce((a, b) => a + b, 0);
const met = (ok: boolean) => (ok ? 'met' : 'missed');

export async function storageBench(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  const shapes = chosenShapes();
  const batch = uploadSize();
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-storage-'));
  const runtime = await startRuntime({ dataDir, port: 0, seed: false, inMemory: true });
  try {
    const w = await world([...new Set(shapes.map((s) => s.code))]);
    installMeter();
    const writes: Array<Record<string, string | number>> = [];
    const writeKinds: Array<Record<string, string | number>> = [];
    const byteKinds: Array<Record<string, string | number>> = [];
    const reads: Array<Record<string, string | number>> = [];
    for (const shape of shapes) {
      const count = Math.min(shape.readings ?? READINGS, READINGS);
      const patientId = await w.newPatient();
      const start = Date.UTC(2025, 0, 1);
      const resources = Array.from({ length: count }, (_, i) => resourceOf(w, patientId, shape, start + i * shape.every));
      const uploads = chunksOf(resources, batch);
      const upload = await measure(async () => {
        for (const chunk of uploads) await postBatch(w, chunk, '201 Created');
      });
      const stored = await storedBy(patientId, resources.flatMap((r) => r.identifier ?? []));
      const first = uploads[0]!;
      const repost = await measure(() => postBatch(w, first, '200 OK'));
      w.practitioner = await w.practitionerToken();
      const page = await measure(() => invoke('GET', `/FHIR/R5/Observation?patient=${patientId}&_count=20`, w.practitioner));
      const download = await measure(async () => {
        let url: string | undefined = `/FHIR/R5/Observation?patient=${patientId}&code=${shape.code}&_count=1000`;
        let rows = 0;
        while (url) {
          const res = await invoke('GET', url, w.practitioner);
          if (res.status !== 200) throw new Error(`download failed: ${JSON.stringify(res.json).slice(0, 300)}`);
          rows += res.json.entry.length;
          url = (res.json.link as Array<{ relation: string; url: string }>).find((l) => l.relation === 'next')?.url?.replace(/^https?:\/\/[^/]+/, '');
        }
        if (rows !== count) throw new Error(`downloaded ${rows} of ${count}`);
      });
      const wcu = upload.writeUnits / count;
      const bytes = sum(stored) / count;
      const repostShare = repost.writeUnits / first.length / wcu;
      const rcuRow = download.readUnits / count;
      const targeted = shape.key === 'heart-rate' && batch === TARGET_BATCH;
      writes.push({
        reading: shape.name,
        readings: count,
        'payload bytes (Base64)': resources[0]!.valueAttachment.data.length,
        'write units / reading': `${wcu.toFixed(2)}${targeted ? ` (at most ${TARGET.writeUnits}: ${met(wcu <= TARGET.writeUnits)})` : ''}`,
        'bytes stored / reading': `${bytes.toFixed(0)}${targeted ? ` (at most ${TARGET.bytes}: ${met(bytes <= TARGET.bytes)})` : ''}`,
        'read units / reading (upload)': (upload.readUnits / count).toFixed(2),
        'read units / upload request': (upload.readUnits / uploads.length).toFixed(1),
        'block puts refused': upload.refused,
        'per million readings: writes': perMillion(wcu, WRITE_PRICE),
        'storage / month': perMillion((bytes * 1e6) / 2 ** 30, STORAGE_PRICE),
        're-post: write units / reading': (repost.writeUnits / first.length).toFixed(2),
        're-post / first upload': `${repostShare.toFixed(2)} (at most ${TARGET.repost}: ${met(repostShare <= TARGET.repost)})`,
        're-post: read units / reading': (repost.readUnits / first.length).toFixed(2),
      });
      writeKinds.push({ reading: shape.name, ...Object.fromEntries(KINDS.map((k) => [k, ((upload.byKind.get(k) ?? 0) / count).toFixed(3)])) });
      byteKinds.push({ reading: shape.name, ...Object.fromEntries(KINDS.map((k) => [k, ((stored.get(k) ?? 0) / count).toFixed(1)])) });
      reads.push({
        reading: shape.name,
        'read units / search page (20 rows)': page.readUnits.toFixed(1),
        'read units / row (download, 1000 a page)': rcuRow.toFixed(3),
        'per million rows downloaded': perMillion(rcuRow, READ_PRICE),
      });
    }
    printTable(
      `Writes and storage per reading (command: ${commandLine()}; each shape one patient's readings through POST /FHIR/R5/ in uploads of ${batch} from one device; bytes from the items left in the table; prices: $${WRITE_PRICE} per million write units, $${STORAGE_PRICE} per GB-month)`,
      writes,
    );
    printTable('Write units per reading, by the kind of item written (every rewrite of a block counted)', writeKinds);
    printTable('Bytes stored per reading, by the kind of item (the table afterwards, 100 bytes of overhead an item)', byteKinds);
    printTable(`Reads (observations table only; $${READ_PRICE} per million read units)`, reads);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
