/**
 * Blocks as items of the observations table (layout 3): a block's key and version beside what
 * `block-codec.ts` encodes, and the readings of the segments of one stretch taken back out.
 */
import { itemSize, type StoredItem } from '../../store/capacity';
import type { ReadingFacts, StoredObservation } from '../model';
import { BlockPayloads, blockOrder, decodeFacts, decodeValueStats, encodeBlock, type BlockFacts, type ValuesTest } from './block-codec';
import type { ValueBounds } from './port';
import { blockKeys, blockOf, type StretchRef } from './block-keys';

export type BlockItem = Record<string, unknown>;

/** A segment grows to about this many bytes; then the stretch starts another (an append rewrites the whole item). */
export const SEGMENT_BYTES = 32 * 1024;

/** The attributes a read of blocks asks for: all but the partition key. */
export const BLOCK_FIELDS: readonly string[] = ['sk', 'ver', 'n', 'lo', 'hi', 'c', 'u', 'z', 's', 'nv'];
/** What a count or a test of facts needs: no payloads. */
export const FACT_FIELDS: readonly string[] = ['sk', 'n', 'lo', 'hi', 'c', 'u', 's', 'nv'];

/** The item of one segment holding `readings`, at version `ver`. */
export function blockItem(patientId: number, ref: StretchRef, segment: number, readings: readonly StoredObservation[], ver: number): BlockItem {
  const block = encodeBlock(readings);
  return {
    ...blockKeys.block(patientId, ref, segment),
    ver,
    n: block.n,
    ...(block.lo !== undefined ? { lo: block.lo, hi: block.hi } : {}),
    c: block.c,
    u: block.u,
    z: block.z,
    ...(block.s !== '' ? { s: block.s } : {}),
    ...(block.unvalued > 0 ? { nv: block.unvalued } : {}),
  };
}

/** The value bounds of a block's readings, per member and unit, or undefined when some of its readings have no values to bound. */
export function boundsOfBlock(item: BlockItem): ValueBounds[] | undefined {
  if (item.nv !== undefined) return undefined;
  return decodeValueStats(typeof item.s === 'string' ? item.s : '').map(({ member, unit, lo, hi }) => ({ member, unit, min: lo, max: hi }));
}

/** Stored size of a block item as DynamoDB counts it. */
export const blockBytes = (item: BlockItem): number => itemSize(item as StoredItem);

/** The facts of a block item's readings (no payload inflated), in block order: all, or those whose values pass `mayKeep`. */
export function factsOfBlock(item: BlockItem, patientId: number, mayKeep?: ValuesTest): BlockFacts[] {
  return decodeFacts(item as { c: Uint8Array; u: Uint8Array }, patientId, blockOf(String(item.sk)).codeId, mayKeep);
}

/**
 * The readings of a block item that `keep` accepts (of those whose values pass `mayKeep`), whole,
 * in block order: a payload's group is inflated only when one of its readings is kept.
 */
export function readingsOfBlock(item: BlockItem, patientId: number, keep: (facts: ReadingFacts) => boolean = () => true, mayKeep?: ValuesTest): StoredObservation[] {
  const kept = factsOfBlock(item, patientId, mayKeep).filter(keep);
  if (kept.length === 0) return [];
  const payloads = new BlockPayloads(item.z as Uint8Array);
  return kept.map((facts) => withPayload(facts, payloads));
}

function withPayload(facts: BlockFacts, payloads: BlockPayloads): StoredObservation {
  const { place: _place, ...reading } = facts;
  return Object.assign(reading, { data: payloads.of(facts) });
}

/** The readings of every segment of one stretch that `keep` accepts (of those whose values pass `mayKeep`), in block order (segments interleave in time). */
export function readingsOfStretch(items: readonly BlockItem[], patientId: number, keep?: (facts: ReadingFacts) => boolean, mayKeep?: ValuesTest): StoredObservation[] {
  if (items.length === 1) return readingsOfBlock(items[0]!, patientId, keep, mayKeep);
  return items.flatMap((item) => readingsOfBlock(item, patientId, keep, mayKeep)).sort(blockOrder);
}

/** The facts of every segment of one stretch, in block order. */
export function factsOfStretch(items: readonly BlockItem[], patientId: number): BlockFacts[] {
  if (items.length === 1) return factsOfBlock(items[0]!, patientId);
  return items.flatMap((item) => factsOfBlock(item, patientId)).sort(blockOrder);
}

/** The ids a stretch holds. */
export const idsOfStretch = (items: readonly BlockItem[], patientId: number): Set<number> => new Set(items.flatMap((item) => factsOfBlock(item, patientId).map((f) => f.id)));
