/**
 * The four DynamoDB tables, defined once. The CDK stack, the local runtime and the tests all build
 * their tables from these definitions, so keys and indexes cannot drift between them.
 */
import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import { config, OBSERVATIONS_TABLE_NAME, type Config } from '../config';

export interface KeyAttribute {
  name: string;
  type: 'S' | 'N';
}

export interface IndexDefinition {
  name: string;
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
  /** `ALL`, `KEYS_ONLY`, or the non-key attributes to copy into the index. */
  projection: 'ALL' | 'KEYS_ONLY' | readonly string[];
}

export interface TableDefinition {
  /** Stable logical id, used for CDK construct ids and config lookup. */
  id: 'observations' | 'aux' | 'directory' | 'brands' | 'exports';
  /**
   * The table's name after the deployment's prefix. A layout change that DynamoDB cannot apply in
   * place (a local index's projection) gets a new name, so a deployment creates the new table
   * beside the old one and the migration command copies the data across (docs/operations.md).
   */
  name: string;
  partitionKey: KeyAttribute;
  sortKey: KeyAttribute;
  /** Local secondary indexes share the partition key and allow strongly consistent reads. */
  localIndexes: readonly IndexDefinition[];
  globalIndexes: readonly IndexDefinition[];
  /** Attribute holding an epoch-seconds expiry, for DynamoDB TTL. */
  ttlAttribute?: string;
}

const S = (name: string): KeyAttribute => ({ name, type: 'S' });

/**
 * Native mobile-health observations, layout 3 (docs/store.md#observations): the readings of one
 * patient, code and hour kept together in blocks, with per-upload pointers and per-reading uuid
 * claims, all in the patient's partition (`P#<patientId>`) but the id ranges and identifier
 * claims (keys in `shared/observations/store/block-keys.ts`). Every per-patient read is a strongly
 * consistent Query or key read of the base table: no index at all, so a patient's partition has no
 * item-collection limit, and every write is one item. Population-wide reads go through the
 * table's stream (docs/store.md#limits-and-scale-on-paper-observations).
 */
export const OBSERVATIONS: TableDefinition = {
  id: 'observations',
  name: OBSERVATIONS_TABLE_NAME,
  partitionKey: S('pk'),
  sortKey: S('sk'),
  localIndexes: [],
  globalIndexes: [],
};

/**
 * Layout 2 (table `observations-v2`): a row per reading keyed by patient and uuid, three local
 * indexes (effective start, code then start, last update) and the sharded code index, with id
 * pointers. Kept for the move to layout 3 (`npm run migrate:observations`).
 */
export const OBSERVATIONS_LAYOUT_2: TableDefinition = {
  id: 'observations',
  name: 'observations-v2',
  partitionKey: S('pk'),
  sortKey: S('sk'),
  localIndexes: [
    { name: 'byEffective', partitionKey: S('pk'), sortKey: S('effSk'), projection: 'KEYS_ONLY' },
    { name: 'byCodeEffective', partitionKey: S('pk'), sortKey: S('codeEffSk'), projection: 'ALL' },
    { name: 'byUpdated', partitionKey: S('pk'), sortKey: S('updatedSk'), projection: 'KEYS_ONLY' },
  ],
  globalIndexes: [{ name: 'byCode', partitionKey: S('codeShard'), sortKey: S('effSk'), projection: 'KEYS_ONLY' }],
};

/** The first layout of the observations table (every index a full copy), kept for the migration command. */
export const OBSERVATIONS_LAYOUT_1: TableDefinition = {
  ...OBSERVATIONS_LAYOUT_2,
  name: 'observations',
  localIndexes: OBSERVATIONS_LAYOUT_2.localIndexes.map((i) => ({ ...i, projection: 'ALL' })),
  globalIndexes: OBSERVATIONS_LAYOUT_2.globalIndexes.map((i) => ({ ...i, projection: 'ALL' })),
};

/**
 * Auxiliary FHIR resources (see `shared/auxiliary/store/dynamo-keys.ts` for the item kinds). Each resource is two
 * items written in one transaction: the resource at `R#<uuid>` (a GetItem away from its id) and a
 * small search-index item in its patient's partition `P#<patientId>`, sorted by type and last
 * update. The local index `bySource` orders the same index items by FHIR Source first. Every read
 * is a key read on the base table or the local index, so all of them can be strongly consistent.
 */
export const AUX: TableDefinition = {
  id: 'aux',
  name: 'aux',
  partitionKey: S('pk'),
  sortKey: S('sk'),
  localIndexes: [{ name: 'bySource', partitionKey: S('pk'), sortKey: S('srcSk'), projection: 'ALL' }],
  globalIndexes: [],
};

/**
 * Organizations, practitioners, patients, studies, data sources, codes, FHIR Sources,
 * invitations, OAuth clients, grants and counters: one table, keys built in one module each.
 * `gsi1` holds inverted relations (patient -> organizations, ...); `gsi2` holds lookups by a
 * secondary value (email, identifier, parent organization).
 */
export const DIRECTORY: TableDefinition = {
  id: 'directory',
  name: 'directory',
  partitionKey: S('pk'),
  sortKey: S('sk'),
  localIndexes: [],
  globalIndexes: [
    { name: 'gsi1', partitionKey: S('gsi1pk'), sortKey: S('gsi1sk'), projection: 'ALL' },
    { name: 'gsi2', partitionKey: S('gsi2pk'), sortKey: S('gsi2sk'), projection: 'ALL' },
  ],
  ttlAttribute: 'expiresAt',
};

/**
 * The hospital directory the portal's picker searches (User-access Brands files an operator loads;
 * keys built only in `shared/brands/store/dynamo.ts`): the published version is a head item
 * naming a set of immutable chunk items, the compressed directory. A search reads the head (one
 * GetItem) and, once per version and warm function, the chunks (one Query); it never scans.
 */
export const BRANDS: TableDefinition = {
  id: 'brands',
  name: 'brands',
  partitionKey: S('pk'),
  sortKey: S('sk'),
  localIndexes: [],
  globalIndexes: [],
};

/**
 * Bulk export jobs and their parts (`shared/export/store/`, keys in `dynamo-keys.ts`): a job and
 * the list of every job in one partition each, a job's parts in its own, a caller's count of running
 * jobs. Finished jobs expire through DynamoDB TTL.
 */
export const EXPORTS: TableDefinition = {
  id: 'exports',
  name: 'exports',
  partitionKey: S('pk'),
  sortKey: S('sk'),
  localIndexes: [],
  globalIndexes: [],
  ttlAttribute: 'expiresAt',
};

export const TABLES: readonly TableDefinition[] = [OBSERVATIONS, AUX, DIRECTORY, BRANDS, EXPORTS];

export function tableName(table: TableDefinition, cfg: Config = config()): string {
  switch (table.id) {
    case 'observations':
      return cfg.observationsTable;
    case 'aux':
      return cfg.auxTable;
    case 'directory':
      return cfg.directoryTable;
    case 'brands':
      return cfg.brandsTable;
    case 'exports':
      return cfg.exports.table;
  }
}

function keySchema(partitionKey: KeyAttribute, sortKey?: KeyAttribute) {
  return [
    { AttributeName: partitionKey.name, KeyType: 'HASH' as const },
    ...(sortKey ? [{ AttributeName: sortKey.name, KeyType: 'RANGE' as const }] : []),
  ];
}

function projection(p: IndexDefinition['projection']) {
  if (p === 'ALL' || p === 'KEYS_ONLY') return { ProjectionType: p };
  return { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...p] };
}

/** The table's index of that name (local or global). */
export function indexNamed(table: TableDefinition, indexName: string | undefined): IndexDefinition | undefined {
  return [...table.localIndexes, ...table.globalIndexes].find((i) => i.name === indexName);
}

/** The attributes an index entry holds: the index's and the table's keys and the projected ones; undefined for ALL. */
export function heldAttributes(table: TableDefinition, index: IndexDefinition): string[] | undefined {
  if (index.projection === 'ALL') return undefined;
  const keys = [table.partitionKey.name, table.sortKey.name, index.partitionKey.name, ...(index.sortKey ? [index.sortKey.name] : [])];
  return [...new Set([...keys, ...(index.projection === 'KEYS_ONLY' ? [] : index.projection)])];
}

/** Whether a Query on this index (or the table) returns whole rows without fetching them from the table. */
export function holdsWholeItems(table: TableDefinition, indexName: string | undefined): boolean {
  return indexName === undefined || indexNamed(table, indexName)?.projection === 'ALL';
}

/** Every attribute used in a key of the table or of one of its indexes. */
export function keyAttributes(table: TableDefinition): KeyAttribute[] {
  const all = [table.partitionKey, table.sortKey];
  for (const index of [...table.localIndexes, ...table.globalIndexes]) {
    all.push(index.partitionKey);
    if (index.sortKey) all.push(index.sortKey);
  }
  return [...new Map(all.map((a) => [a.name, a])).values()];
}

/**
 * The CreateTable request for the local engine and tests (on-demand billing, like the stack). No
 * stream, unlike the stack's tables: nothing reads one locally, and DynamoDB Local's stream
 * emulation makes every write slower the more records its streams hold (an export's kick-off, two
 * writes, took 670 ms with 100,000 readings stored, 22 ms without;
 * docs/benchmarks.md#bulk-export-npm-run-bench----export).
 */
export function createTableInput(table: TableDefinition, name: string): CreateTableCommandInput {
  return {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: keyAttributes(table).map((a) => ({ AttributeName: a.name, AttributeType: a.type })),
    KeySchema: keySchema(table.partitionKey, table.sortKey),
    ...(table.localIndexes.length > 0
      ? {
          LocalSecondaryIndexes: table.localIndexes.map((i) => ({
            IndexName: i.name,
            KeySchema: keySchema(i.partitionKey, i.sortKey),
            Projection: projection(i.projection),
          })),
        }
      : {}),
    ...(table.globalIndexes.length > 0
      ? {
          GlobalSecondaryIndexes: table.globalIndexes.map((i) => ({
            IndexName: i.name,
            KeySchema: keySchema(i.partitionKey, i.sortKey),
            Projection: projection(i.projection),
          })),
        }
      : {}),
  };
}
