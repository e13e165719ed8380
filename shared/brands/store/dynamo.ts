/**
 * The brands store on its own table (`BRANDS` in shared/store/tables.ts). Items:
 *
 * | item | pk | sk | holds |
 * |---|---|---|---|
 * | head | `HEAD` | `HEAD` | the published version, its chunk count, the lists' summaries, the version before it |
 * | chunk | `V#<version>` | `C#<00000n>` | a part of the gzip-compressed JSON directory (at most 350,000 bytes) and the count of parts |
 * | pending | `PENDING` | `<version>` | a version being written, until the head names it or it is swept |
 *
 * A search reads the head (one GetItem) and, when its version is new to the process, that
 * version's chunks (one Query of one partition). A publication records its version as pending,
 * writes the chunks, then moves the head with a condition on the version it read; afterwards it
 * deletes the version before the previous one (the previous stays readable for readers that just
 * read the head) and its pending record. A publication that lost the race, or stopped half-way,
 * leaves a pending record; the next publication deletes such versions once they are 15 minutes old.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { config } from '../../config';
import { batchDeleteAll, batchWriteAll } from '../../store/batch';
import { dynamo } from '../../store/clients';
import { getItem, queryAll, type Item } from '../../store/reads';
import type { BrandDirectory, DirectoryHead, ListSummary } from '../model';
import { summaryOf } from '../model';
import type { BrandStore } from './port';

/** Bytes of compressed directory per item: under DynamoDB's 400 KB item limit with the keys. */
export const CHUNK_BYTES = 350_000;
/** A pending version older than this was left by a publication that stopped. */
const PENDING_SWEEP_MS = 15 * 60_000;

const table = () => config().brandsTable;
const HEAD = { pk: 'HEAD', sk: 'HEAD' } as const;
const chunkKey = (version: string, index: number) => ({ pk: `V#${version}`, sk: `C#${String(index).padStart(6, '0')}` });
const pendingKey = (version: string) => ({ pk: 'PENDING', sk: version });

interface HeadItem {
  version: string;
  chunks: number;
  publishedAt: string;
  lists: ListSummary[];
  previous?: { version: string; chunks: number };
}

/** A version name that sorts by time of publication and never repeats. */
const newVersion = () => `${Date.now().toString(36).padStart(9, '0')}-${randomBytes(4).toString('hex')}`;

/** The directory as gzip-compressed JSON, in parts of at most CHUNK_BYTES (gzip never gives an empty output). */
function encode(directory: BrandDirectory): Buffer[] {
  const packed = gzipSync(JSON.stringify(directory));
  const parts: Buffer[] = [];
  for (let at = 0; at < packed.length; at += CHUNK_BYTES) parts.push(packed.subarray(at, at + CHUNK_BYTES));
  return parts;
}

async function readHead(): Promise<HeadItem | undefined> {
  const item = await getItem(table(), HEAD);
  return item as HeadItem | undefined;
}

const headOf = (item: HeadItem): DirectoryHead => ({ version: item.version, publishedAt: item.publishedAt, lists: item.lists });

const chunkKeys = (version: string, chunks: number) => Array.from({ length: chunks }, (_, i) => chunkKey(version, i));

/** Deletes a version's chunks and its pending record. */
async function dropVersion(version: string, chunks: number): Promise<void> {
  await batchDeleteAll(table(), [...chunkKeys(version, chunks), pendingKey(version)]);
}

/** Versions whose publication stopped (or lost) more than 15 minutes ago. */
async function sweepPending(now: number): Promise<void> {
  const stale = (await queryAll({ table: table(), pk: 'PENDING' })).filter((p) => now - Number(p.startedAt) > PENDING_SWEEP_MS);
  for (const p of stale) await dropVersion(String(p.sk), Number(p.chunks));
}

export const dynamoBrandStore: BrandStore = {
  head: async () => {
    const item = await readHead();
    return item && headOf(item);
  },

  read: async (version) => {
    const items = await queryAll({ table: table(), pk: chunkKey(version, 0).pk });
    const of = Number(items[0]?.of);
    if (items.length === 0 || items.length !== of) return undefined;
    // The Query returns the chunks in sort-key order, which is their order.
    const packed = Buffer.concat(items.map((item: Item) => Buffer.from(item.data as Uint8Array)));
    return JSON.parse(gunzipSync(packed).toString('utf8')) as BrandDirectory;
  },

  publish: async (next, expected, publishedAt) => {
    await sweepPending(Date.now());
    const version = newVersion();
    const chunks = encode(next);
    await dynamo().send(new PutCommand({ TableName: table(), Item: { ...pendingKey(version), chunks: chunks.length, startedAt: Date.now() } }));
    const unwritten = await batchWriteAll(
      table(),
      chunks.map((data, i) => ({ PutRequest: { Item: { ...chunkKey(version, i), of: chunks.length, data } } })),
    );
    if (unwritten.length > 0) throw new Error(`the brands store kept refusing ${unwritten.length} chunk writes; nothing was published`);
    const current = await readHead();
    if (current?.version !== expected) {
      await dropVersion(version, chunks.length);
      return false;
    }
    const head: HeadItem = {
      version,
      chunks: chunks.length,
      publishedAt,
      lists: next.lists.map(summaryOf),
      ...(current ? { previous: { version: current.version, chunks: current.chunks } } : {}),
    };
    try {
      await dynamo().send(
        new PutCommand({
          TableName: table(),
          Item: { ...HEAD, ...head },
          ...(expected === undefined
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : { ConditionExpression: '#version = :expected', ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':expected': expected } }),
        }),
      );
    } catch (e) {
      if (!(e instanceof ConditionalCheckFailedException)) throw e;
      await dropVersion(version, chunks.length);
      return false;
    }
    await batchDeleteAll(table(), [pendingKey(version)]);
    if (current?.previous) await dropVersion(current.previous.version, current.previous.chunks);
    return headOf(head);
  },
};
