/**
 * What a reading costs to store and to read, priced by DynamoDB's published rules from the requests
 * the store actually sends (`shared/store/capacity.ts`): the FHIR handler uploads readings of
 * several shapes into DynamoDB Local while every request to the observations table is recorded;
 * then searches and a full download of them are recorded the same way.
 *
 * - write units per reading: each item written (doubled inside a transaction) and each index
 *   entry it lands in; the id counter and the span statistics are included (amortised);
 * - bytes stored per reading: each item written and its index entries, with DynamoDB's 100 bytes
 *   of overhead each;
 * - read units per search page (20 rows) and per row of a full download (1000 a page).
 *
 * Prices (`BENCH_WRITE_PRICE`, `BENCH_READ_PRICE`, `BENCH_STORAGE_PRICE`): on-demand, US East, in
 * USD per million write request units, per million read request units and per GB-month.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { unmarshall, type NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { startRuntime } from '../local/runtime';
import { config } from '../shared/config';
import type { Id } from '../shared/directory/model';
import { encodePayload, samplePayload } from '../shared/omh/samples';
import { itemReadUnits, queryReadUnits, storedBytes, writeUnits, type StoredItem } from '../shared/store/capacity';
import { dynamo } from '../shared/store/clients';
import { heldAttributes, indexNamed, OBSERVATIONS, type TableDefinition } from '../shared/store/tables';
import { chunksOf } from '../shared/lists';
import { HOUR, invoke, postBatch, world, type World } from './observation-world';
import { printTable } from './table';

const READINGS = Number(process.env.BENCH_STORAGE_READINGS ?? 1000);
/** Readings a batch: 200 of the 10 KB ones stay under the 5 MB body limit. */
const BATCH = 200;
const WRITE_PRICE = Number(process.env.BENCH_WRITE_PRICE ?? 0.625);
const READ_PRICE = Number(process.env.BENCH_READ_PRICE ?? 0.125);
const STORAGE_PRICE = Number(process.env.BENCH_STORAGE_PRICE ?? 0.25);

interface Meter {
  writeUnits: number;
  readUnits: number;
  bytes: number;
}

const meter: Meter = { writeUnits: 0, readUnits: 0, bytes: 0 };
const reset = () => Object.assign(meter, { writeUnits: 0, readUnits: 0, bytes: 0 });

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

/** The table definition a request's table name belongs to (the observations table is the one priced). */
function definitionOf(tableName: string | undefined): TableDefinition | undefined {
  return tableName === config().observationsTable ? OBSERVATIONS : undefined;
}

function recordWrite(tableName: string | undefined, item: Marshalled | undefined, transactional: boolean) {
  const table = definitionOf(tableName);
  if (!table) return;
  const n = native(item);
  meter.writeUnits += writeUnits(table, n, transactional);
  meter.bytes += storedBytes(table, n);
}

/** An item an update or delete touches, whose body the request does not carry: a small item, 1 unit. */
function recordSmallWrite(tableName: string | undefined, transactional: boolean) {
  if (definitionOf(tableName)) meter.writeUnits += transactional ? 2 : 1;
}

/** Whether a Query on an index asks for attributes the index does not hold (a local index then fetches the item). */
function fetches(table: TableDefinition, input: { IndexName?: string; Select?: string; ProjectionExpression?: string; ExpressionAttributeNames?: Record<string, string> }): boolean {
  const index = indexNamed(table, input.IndexName);
  const attributes = index && heldAttributes(table, index);
  if (!attributes || input.Select === 'COUNT' || input.Select === 'ALL_PROJECTED_ATTRIBUTES') return false;
  if (!input.ProjectionExpression) return input.Select === 'ALL_ATTRIBUTES';
  const held = new Set(attributes);
  return input.ProjectionExpression.split(',').map((a) => a.trim()).map((a) => input.ExpressionAttributeNames?.[a] ?? a).some((a) => !held.has(a));
}

function record(command: string, input: any, output: any) {
  switch (command) {
    case 'PutItemCommand':
      return recordWrite(input.TableName, input.Item, false);
    case 'UpdateItemCommand':
    case 'DeleteItemCommand':
      return recordSmallWrite(input.TableName, false);
    case 'TransactWriteItemsCommand':
      for (const action of input.TransactItems ?? []) {
        if (action.Put) recordWrite(action.Put.TableName, action.Put.Item, true);
        else recordSmallWrite((action.Update ?? action.Delete ?? action.ConditionCheck)?.TableName, true);
      }
      return;
    case 'BatchWriteItemCommand':
      for (const [tableName, requests] of Object.entries(input.RequestItems ?? {}) as Array<[string, any[]]>) {
        for (const r of requests) {
          if (r.PutRequest) recordWrite(tableName, r.PutRequest.Item, false);
          else recordSmallWrite(tableName, false);
        }
      }
      return;
    case 'GetItemCommand':
      if (definitionOf(input.TableName)) meter.readUnits += output?.Item ? itemReadUnits([native(output.Item)], input.ConsistentRead) : 1;
      return;
    case 'BatchGetItemCommand':
      for (const [tableName, items] of Object.entries(output?.Responses ?? {}) as Array<[string, Marshalled[]]>) {
        const asked = input.RequestItems?.[tableName];
        if (!definitionOf(tableName)) continue;
        const misses = (asked?.Keys?.length ?? 0) - items.length;
        meter.readUnits += itemReadUnits(items.map(native), asked?.ConsistentRead) + Math.max(0, misses) * (asked?.ConsistentRead ? 1 : 0.5);
      }
      return;
    case 'QueryCommand': {
      const table = definitionOf(input.TableName);
      if (!table) return;
      const items = (output?.Items ?? []).map(native);
      meter.readUnits += input.Select === 'COUNT'
        ? Math.max(1, Math.ceil((output?.ScannedCount ?? 0) * 200 / 4096)) / (input.ConsistentRead ? 1 : 2)
        : queryReadUnits(table, input.IndexName, items, { consistent: input.ConsistentRead, fetched: fetches(table, input) });
      return;
    }
  }
}

let installed = false;
function installMeter() {
  if (installed) return;
  installed = true;
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      try {
        record(String(context.commandName), args.input, (out as { output?: unknown }).output);
      } catch (e) {
        console.error('capacity meter', context.commandName, e);
      }
      return out;
    },
    { step: 'build', name: 'capacityMeter' },
  );
}

interface Shape {
  name: string;
  code: string;
  /** Body members added to the sample (to make a large payload). */
  extra?: Record<string, unknown>;
  identifier: boolean;
}

const NOTES = 'x'.repeat(9_600);
const SHAPES: Shape[] = [
  { name: 'heart rate', code: 'omh:heart-rate:2.0', identifier: false },
  { name: 'heart rate + identifier', code: 'omh:heart-rate:2.0', identifier: true },
  { name: 'blood pressure', code: 'omh:blood-pressure:4.0', identifier: false },
  { name: 'sleep episode', code: 'omh:sleep-episode:1.1', identifier: false },
  { name: '10 KB payload', code: 'omh:heart-rate:2.0', extra: { user_notes: NOTES }, identifier: false },
  { name: '10 KB payload + identifier', code: 'omh:heart-rate:2.0', extra: { user_notes: NOTES }, identifier: true },
];

function resourceOf(w: World, patientId: Id, shape: Shape, at: number) {
  const payload = samplePayload(shape.code, { at }) as { body: Record<string, unknown> };
  Object.assign(payload.body, shape.extra ?? {});
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
  return { ...meter, value };
}

export async function storageBench(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-storage-'));
  const runtime = await startRuntime({ dataDir, port: 0, seed: false, inMemory: true });
  try {
    const w = await world([...new Set(SHAPES.map((s) => s.code))]);
    installMeter();
    const writes: Array<Record<string, string | number>> = [];
    const reads: Array<Record<string, string | number>> = [];
    for (const shape of SHAPES) {
      const patientId = await w.newPatient();
      const start = Date.UTC(2025, 0, 1);
      const resources = Array.from({ length: READINGS }, (_, i) => resourceOf(w, patientId, shape, start + i * HOUR));
      const upload = await measure(async () => {
        for (const chunk of chunksOf(resources, BATCH)) await postBatch(w, chunk, '201 Created');
      });
      const repost = await measure(() => postBatch(w, resources.slice(0, BATCH), '200 OK'));
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
        if (rows !== READINGS) throw new Error(`downloaded ${rows} of ${READINGS}`);
      });
      const wcu = upload.writeUnits / READINGS;
      const bytes = upload.bytes / READINGS;
      const rcuRow = download.readUnits / READINGS;
      writes.push({
        reading: shape.name,
        'payload bytes (Base64)': resources[0]!.valueAttachment.data.length,
        'write units / reading': wcu.toFixed(2),
        'read units / reading (upload lookups)': (upload.readUnits / READINGS).toFixed(2),
        'bytes stored / reading': bytes.toFixed(0),
        'per million readings: writes': perMillion(wcu, WRITE_PRICE),
        'storage / month': perMillion((bytes * 1e6) / 2 ** 30, STORAGE_PRICE),
        're-post: write units / reading': (repost.writeUnits / BATCH).toFixed(2),
        're-post: read units / reading': (repost.readUnits / BATCH).toFixed(2),
      });
      reads.push({
        reading: shape.name,
        'read units / search page (20 rows)': page.readUnits.toFixed(1),
        'read units / row (download, 1000 a page)': rcuRow.toFixed(3),
        'per million rows downloaded': perMillion(rcuRow, READ_PRICE),
      });
    }
    printTable(`Writes and storage per reading (${READINGS} readings through POST /FHIR/R5/ in batches of ${BATCH}; prices: $${WRITE_PRICE} per million write units, $${STORAGE_PRICE} per GB-month)`, writes);
    printTable(`Reads (observations table only; $${READ_PRICE} per million read units)`, reads);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
