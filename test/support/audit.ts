/**
 * Whole-store audits for the fault and fuzz suites: every item of the observations table, of the
 * auxiliary table and every object of the bodies bucket (or every record of the twins, when the
 * file runs on them), checked for the items that must come in sets. A reading is its place in a
 * block, its uuid claim, the id range that leads to it and one claim per identifier (the twin: its
 * row, its id and its identifier claims); an auxiliary resource is its resource item, its index item,
 * its upstream claim and (when large) its S3 object. An item of a set whose other members are
 * missing is an orphan, and the audit names it; so is an object that no resource points at unless
 * the store lists it as pending (being written, or to delete).
 */
import { config } from '../../shared/config';
import { auxiliaryKeys } from '../../shared/auxiliary/store/dynamo-keys';
import { readingsOfBlock } from '../../shared/observations/store/block-items';
import { blockKeys, blockOf } from '../../shared/observations/store/block-keys';
import { rangeHolds } from '../../shared/observations/store/block-pointers';
import type { ObservationIdentifier } from '../../shared/observations/model';
import { claimKey, keyId } from '../../shared/observations/store/rounds';
import { bucketKeys } from './auxiliary';
import { tableItems, twinRecords, twinsInUse } from './store';

type Item = Record<string, any>;

export interface StoredReading {
  id: number;
  patientId: number;
  uuid: string;
}

export interface ObservationAudit {
  readings: StoredReading[];
  /** Uuid claims (the twin: ids) that do not lead to a reading carrying that id: a re-post of it would wait for a reading that is not there. */
  orphanPointers: string[];
  /** Readings no claim or no id range leads to: stored, yet not found again by uuid or by id. */
  unreachableRows: string[];
  /** `I#...` claims held by no row that carries the identifier. */
  orphanIdentifierClaims: string[];
  /** Identifiers of rows that no claim reserves. */
  unclaimedIdentifiers: string[];
}

const keyOf = (item: Item) => `${item.pk}|${item.sk}`;

/** A store's readings as the audit reads them: the rows, the id pointers, the identifier claims. */
interface ReadingSets {
  rows: Item[];
  /** Where a row is kept; the key of the row a pointer leads to. */
  placeOf(row: Item): string;
  placeOfPointed(patientId: unknown, uuid: unknown): string;
  /** Each pointer, named, and the id and row it leads to. */
  pointers: Array<{ name: string; id: number; patientId: unknown; uuid: unknown }>;
  /** Claim name -> the id holding it. */
  claims: Map<string, unknown>;
  claimOf(identifier: ObservationIdentifier): string;
  /** A row's `header.uuid`. */
  uuidOf(row: Item): string;
}

async function readingSets(): Promise<ReadingSets> {
  const twins = twinsInUse();
  if (twins) {
    const records = twinRecords(twins.observations);
    const ofKind = (kind: string) => records.filter((r) => r.kind === kind) as Item[];
    return {
      rows: ofKind('readings'),
      placeOf: (row) => JSON.stringify(row.key),
      placeOfPointed: (patientId, uuid) => JSON.stringify([patientId, uuid]),
      pointers: ofKind('readingIds').map((p) => ({ name: `id ${p.key}`, id: Number(p.key), patientId: p.patientId, uuid: p.uuid })),
      claims: new Map(ofKind('identifierClaims').map((c) => [String(c.key), c.value])),
      claimOf: (identifier) => keyId(claimKey(identifier)),
      uuidOf: (row) => String(row.uuid),
    };
  }
  const items = (await tableItems(config().observationsTable)) as Item[];
  const patientOf = (item: Item) => Number(String(item.pk).slice(2));
  const rows: Item[] = items
    .filter((i) => String(i.pk).startsWith('P#') && String(i.sk).startsWith('B#'))
    .flatMap((block) => readingsOfBlock(block, patientOf(block)).map((r) => ({ ...r, place: `${block.pk}|${blockOf(String(block.sk)).codeId}#${blockOf(String(block.sk)).stretch}` })));
  const ranges = items.filter((i) => String(i.pk).startsWith('R#'));
  // A reading counts as pointed at when its uuid claim names it and an id range leads to its stretch.
  const ranged = (row: Item) => ranges.some((range) => {
    const held = rangeHolds(range, row.id as number);
    return held !== undefined && held.patientId === row.patientId && `P#${held.patientId}|${held.ref.codeId}#${held.ref.stretch}` === row.place;
  });
  return {
    rows,
    placeOf: (row) => `${row.patientId}|${row.uuid}`,
    placeOfPointed: (patientId, uuid) => `${Number(patientId)}|${String(uuid)}`,
    pointers: items
      .filter((i) => String(i.pk).startsWith('P#') && String(i.sk).startsWith('U#'))
      .map((c) => ({ name: `${c.pk}|${c.sk}`, id: Number(c.id), patientId: patientOf(c), uuid: String(c.sk).slice(2) }))
      .filter((claim) => {
        const row = rows.find((r) => r.patientId === claim.patientId && r.uuid === claim.uuid);
        return !row || ranged(row);
      }),
    claims: new Map(items.filter((i) => String(i.pk).startsWith('I#')).map((c) => [keyOf(c), c.id])),
    claimOf: (identifier) => keyOf(blockKeys.identifier(identifier.system ?? '', identifier.value)),
    uuidOf: (row) => String(row.uuid),
  };
}

export async function auditObservations(): Promise<ObservationAudit> {
  const { rows, placeOf, placeOfPointed, pointers, claims, claimOf, uuidOf } = await readingSets();
  const rowsByPlace = new Map(rows.map((r) => [placeOf(r), r]));
  const pointed = new Set<string>();
  const orphanPointers: string[] = [];
  for (const p of pointers) {
    const row = rowsByPlace.get(placeOfPointed(p.patientId, p.uuid));
    if (row?.id === p.id) pointed.add(placeOf(row));
    else orphanPointers.push(p.name);
  }
  const heldClaims = new Set<string>();
  const unclaimedIdentifiers: string[] = [];
  for (const row of rows) {
    for (const identifier of (row.identifiers ?? []) as ObservationIdentifier[]) {
      const claim = claimOf(identifier);
      if (claims.get(claim) === row.id) heldClaims.add(claim);
      else unclaimedIdentifiers.push(`${row.id}: ${identifier.system ?? ''}|${identifier.value}`);
    }
  }
  return {
    readings: rows.map((r) => ({ id: r.id, patientId: r.patientId, uuid: uuidOf(r) })),
    orphanPointers,
    unreachableRows: rows.filter((r) => !pointed.has(placeOf(r))).map(placeOf),
    orphanIdentifierClaims: [...claims.keys()].filter((k) => !heldClaims.has(k)),
    unclaimedIdentifiers,
  };
}

export interface StoredAuxResource {
  id: string;
  type: string;
  patientId: number;
  sourceId: number;
  version: number;
  upstreamId?: string;
  bodyKey?: string;
}

export interface AuxiliaryAudit {
  resources: StoredAuxResource[];
  /** Index items without their resource item at the same version. */
  orphanIndexItems: string[];
  /** Resource items no index item finds (stored, yet never in a search). */
  unindexedResources: string[];
  /** Upstream claims that no resource of that source, type and upstream id holds. */
  orphanUpstreamClaims: string[];
  /** Resources with an upstream id that no claim reserves. */
  unclaimedResources: string[];
  /** Objects of the bucket that no resource points at and no pending-body entry lists. */
  orphanBodies: string[];
  /** Pending-body entries: objects being written or awaiting deletion (none once every write has settled and the sweep ran). */
  pendingBodies: string[];
  /** Resources pointing at an object that is not in the bucket. */
  missingBodies: string[];
}

/** A store's auxiliary resources as the audit reads them: resources, index entries, upstream claims, pending bodies, objects. */
interface AuxSets {
  resources: Item[];
  /** Each index entry, named. */
  index: Array<{ name: string; item: Item }>;
  /** Each claim, named, and the id holding it. */
  claims: Array<{ name: string; id: string }>;
  /** The name of the claim a resource with an upstream id holds. */
  claimOf(resource: Item): string;
  pending: Array<{ bodyKey: string; state: string }>;
  objects: Set<string>;
}

async function auxiliarySets(): Promise<AuxSets> {
  const objects = new Set(await bucketKeys());
  const twins = twinsInUse();
  if (twins) {
    const { bodies: _bodies, ...rows } = twins.auxiliary;
    const records = twinRecords(rows);
    const ofKind = (kind: string) => records.filter((r) => r.kind === kind) as Item[];
    return {
      resources: ofKind('resources'),
      index: ofKind('indexRows').map((item) => ({ name: keyOf(item), item })),
      claims: ofKind('upstreamClaims').map((c) => ({ name: JSON.stringify(c.key), id: String(c.id) })),
      claimOf: (r) => JSON.stringify([r.sourceId, r.type, r.upstreamId]),
      pending: ofKind('pendingBodies').map((p) => ({ bodyKey: String(p.key[1]), state: String(p.state) })),
      objects,
    };
  }
  const items = (await tableItems(config().auxTable)) as Item[];
  const withPrefix = (prefix: string) => items.filter((i) => String(i.pk).startsWith(prefix));
  return {
    resources: withPrefix('R#'),
    index: withPrefix('P#').map((item) => ({ name: keyOf(item), item })),
    claims: withPrefix('U#').map((c) => ({ name: keyOf(c), id: String(c.id) })),
    claimOf: (r) => keyOf(auxiliaryKeys.upstreamClaim(r.sourceId, r.type, r.upstreamId)),
    pending: withPrefix('B#').map((p) => ({ bodyKey: String(p.sk), state: String(p.state) })),
    objects,
  };
}

export async function auditAuxiliary(): Promise<AuxiliaryAudit> {
  const { resources, index, claims, claimOf, pending, objects } = await auxiliarySets();
  const listed = new Set(pending.map((p) => p.bodyKey));
  const byId = new Map(resources.map((r) => [String(r.id), r]));
  const indexed = new Set<string>();
  const orphanIndexItems: string[] = [];
  for (const { name, item } of index) {
    const resource = byId.get(String(item.id));
    if (resource && resource.version === item.version && resource.lastUpdated === item.lastUpdated) indexed.add(String(item.id));
    else orphanIndexItems.push(name);
  }
  const claimed = new Map(claims.map((c) => [c.name, c.id]));
  const referenced = new Set(resources.flatMap((r) => (typeof r.bodyKey === 'string' ? [r.bodyKey] : [])));
  return {
    resources: resources.map((r) => ({
      id: String(r.id),
      type: String(r.type),
      patientId: Number(r.patientId),
      sourceId: Number(r.sourceId),
      version: Number(r.version),
      ...(typeof r.upstreamId === 'string' ? { upstreamId: r.upstreamId } : {}),
      ...(typeof r.bodyKey === 'string' ? { bodyKey: r.bodyKey } : {}),
    })),
    orphanIndexItems,
    unindexedResources: resources.filter((r) => !indexed.has(String(r.id))).map((r) => String(r.id)),
    orphanUpstreamClaims: claims
      .filter((c) => {
        const holder = byId.get(c.id);
        return !holder || holder.upstreamId === undefined || claimOf(holder) !== c.name;
      })
      .map((c) => c.name),
    unclaimedResources: resources.filter((r) => typeof r.upstreamId === 'string' && claimed.get(claimOf(r)) !== String(r.id)).map((r) => String(r.id)),
    orphanBodies: [...objects].filter((key) => !referenced.has(key) && !listed.has(key)),
    pendingBodies: pending.map((p) => `${p.state} ${p.bodyKey}`),
    missingBodies: [...referenced].filter((key) => !objects.has(key)),
  };
}

/** The lists of an audit that must be empty: every orphan and every incomplete set. */
export function defectsOf(audit: ObservationAudit | AuxiliaryAudit): Record<string, string[]> {
  const { readings: _r, resources: _s, ...defects } = audit as Partial<ObservationAudit & AuxiliaryAudit>;
  return defects as Record<string, string[]>;
}
