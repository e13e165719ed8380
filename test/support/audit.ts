/**
 * Whole-store audits for the fault and fuzz suites: every item of the observations table, of the
 * auxiliary table and every object of the bodies bucket, checked for the items that must come in
 * sets. A reading is its row, its id pointer and one claim per identifier; an auxiliary resource is
 * its resource item, its index item, its upstream claim and (when large) its S3 object. An item
 * of a set whose other members are missing is an orphan, and the audit names it; so is an object
 * that no resource points at unless the store lists it as pending (being written, or to delete).
 */
import { config } from '../../shared/config';
import { auxKeys } from '../../shared/auxiliary/keys';
import { uuidOf } from '../../shared/observations/items';
import { observationKeys } from '../../shared/observations/keys';
import { bucketKeys } from './auxiliary';
import { tableItems } from './store';

type Item = Record<string, any>;

export interface StoredReading {
  id: number;
  patientId: number;
  uuid: string;
}

export interface ObservationAudit {
  readings: StoredReading[];
  /** `O#<id>` items that do not lead to a row carrying that id. */
  orphanPointers: string[];
  /** Rows no pointer leads to: stored, yet not readable by id. */
  unreachableRows: string[];
  /** `I#...` claims held by no row that carries the identifier. */
  orphanIdentifierClaims: string[];
  /** Identifiers of rows that no claim reserves. */
  unclaimedIdentifiers: string[];
}

const keyOf = (item: Item) => `${item.pk}|${item.sk}`;

export async function auditObservations(): Promise<ObservationAudit> {
  const items = (await tableItems(config().observationsTable)) as Item[];
  const rows = items.filter((i) => String(i.sk).startsWith('U#'));
  const rowsByKey = new Map(rows.map((r) => [keyOf(r), r]));
  const pointers = items.filter((i) => String(i.pk).startsWith('O#'));
  const pointed = new Set<string>();
  const orphanPointers: string[] = [];
  for (const p of pointers) {
    const id = Number(String(p.pk).slice(2));
    const target = observationKeys.observation(p.patientId, p.uuid);
    const row = rowsByKey.get(keyOf(target));
    if (row?.id === id) pointed.add(keyOf(row));
    else orphanPointers.push(String(p.pk));
  }
  const claimsByKey = new Map(items.filter((i) => String(i.pk).startsWith('I#')).map((c) => [keyOf(c), c]));
  const heldClaims = new Set<string>();
  const unclaimedIdentifiers: string[] = [];
  for (const row of rows) {
    for (const identifier of (row.identifiers ?? []) as Array<{ system?: string; value: string }>) {
      const claim = keyOf(observationKeys.identifier(identifier.system ?? '', identifier.value));
      if (claimsByKey.get(claim)?.id === row.id) heldClaims.add(claim);
      else unclaimedIdentifiers.push(`${row.id}: ${identifier.system ?? ''}|${identifier.value}`);
    }
  }
  return {
    readings: rows.map((r) => ({ id: r.id, patientId: r.patientId, uuid: uuidOf(r) })),
    orphanPointers,
    unreachableRows: rows.filter((r) => !pointed.has(keyOf(r))).map(keyOf),
    orphanIdentifierClaims: [...claimsByKey.keys()].filter((k) => !heldClaims.has(k)),
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

export interface AuxAudit {
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

export async function auditAux(): Promise<AuxAudit> {
  const items = (await tableItems(config().auxTable)) as Item[];
  const resources = items.filter((i) => String(i.pk).startsWith('R#'));
  const index = items.filter((i) => String(i.pk).startsWith('P#'));
  const claims = items.filter((i) => String(i.pk).startsWith('U#'));
  const pending = items.filter((i) => String(i.pk).startsWith('B#'));
  const listed = new Set(pending.map((p) => String(p.sk)));
  const objects = new Set(await bucketKeys());
  const byId = new Map(resources.map((r) => [String(r.id), r]));
  const indexed = new Set<string>();
  const orphanIndexItems: string[] = [];
  for (const item of index) {
    const resource = byId.get(String(item.id));
    if (resource && resource.version === item.version && resource.lastUpdated === item.lastUpdated) indexed.add(String(item.id));
    else orphanIndexItems.push(keyOf(item));
  }
  const claimKey = (r: Item) => keyOf(auxKeys.upstreamClaim(r.sourceId, r.type, r.upstreamId));
  const claimed = new Map(claims.map((c) => [keyOf(c), String(c.id)]));
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
    orphanUpstreamClaims: claims.filter((c) => {
      const holder = byId.get(String(c.id));
      return !holder || holder.upstreamId === undefined || claimKey(holder) !== keyOf(c);
    }).map(keyOf),
    unclaimedResources: resources.filter((r) => typeof r.upstreamId === 'string' && claimed.get(claimKey(r)) !== String(r.id)).map((r) => String(r.id)),
    orphanBodies: [...objects].filter((key) => !referenced.has(key) && !listed.has(key)),
    pendingBodies: pending.map((p) => `${p.state} ${p.sk}`),
    missingBodies: [...referenced].filter((key) => !objects.has(key)),
  };
}

/** The lists of an audit that must be empty: every orphan and every incomplete set. */
export function defectsOf(audit: ObservationAudit | AuxAudit): Record<string, string[]> {
  const { readings: _r, resources: _s, ...defects } = audit as Partial<ObservationAudit & AuxAudit>;
  return defects as Record<string, string[]>;
}
