/**
 * THE keys of the observations table. Item kinds:
 *
 * - Observation: `pk = P#<patientId>`, `sk = U#<header.uuid>`. The base key names the reading
 *   itself, so the store refuses a second row for the same reading (a conditional put), and every
 *   per-patient read is a strongly consistent Query on a local index of the patient's partition:
 *   `effSk` (effective start), `codeEffSk` (code, then effective start), `updatedSk` (last update).
 *   Rows without an effective time get `Z#<id>` in place of the start, which sorts after every date.
 * - Id pointer: `pk = O#<id>`, `sk = O` -> the observation's key (read by id, strongly consistent).
 * - Identifier claim: `pk = I#<system>#<value>`, `sk = I` -> the id that holds it (unique across
 *   the store; written in the same transaction as the observation).
 * - Span statistics: `pk = P#<patientId>`, `sk = #SPAN`: the longest effective period stored for the
 *   patient (rounded up to a power of two), which turns "ends after X" into a key condition.
 *
 * Instants in sort keys are `Date#toISOString()` (fixed width, so text order is time order) and ids
 * are zero-padded, so every sort key orders as its values do.
 */
import { keyText, pad } from '../../store/directory-keys';
import type { ReadingsQuery } from './port';

export interface ObservationKey {
  pk: string;
  sk: string;
}

/** Sort-key text of an instant (epoch ms). */
export const instantKey = (ms: number): string => new Date(ms).toISOString();

/** Marks an observation without an effective time in sort keys; sorts after every instant. */
export const UNDATED = 'Z';

/** Upper end of the dated part of a sort key range: after every `<instant>#<id>`, before `Z#...`. */
export const DATED_END = '9~';
/** Lower end of the dated part: before every instant. */
export const DATED_START = '0';

/** Shards of the population-wide code index (`byCode`): one code's writes spread over this many partitions. */
export const CODE_SHARDS = 16;

export const observationKeys = {
  patientPk: (patientId: number) => `P#${patientId}`,
  observation: (patientId: number, uuid: string): ObservationKey => ({ pk: `P#${patientId}`, sk: `U#${uuid}` }),
  pointer: (id: number): ObservationKey => ({ pk: `O#${id}`, sk: 'O' }),
  identifier: (system: string, value: string): ObservationKey => ({ pk: `I#${keyText(system)}#${keyText(value)}`, sk: 'I' }),
  spanStats: (patientId: number): ObservationKey => ({ pk: `P#${patientId}`, sk: '#SPAN' }),
};

/** `<start>#<id>` for a dated row, `Z#<id>` for an undated one. */
export function effectiveSortKey(start: number | undefined, id: number): string {
  return `${start === undefined ? UNDATED : instantKey(start)}#${pad(id)}`;
}

/** The code's prefix in `codeEffSk`. */
export const codePrefix = (codeId: number) => `${pad(codeId)}#`;

export function codeEffectiveSortKey(codeId: number, start: number | undefined, id: number): string {
  return codePrefix(codeId) + effectiveSortKey(start, id);
}

export function updatedSortKey(lastUpdated: string, id: number): string {
  return `${lastUpdated}#${pad(id)}`;
}

/** The id an `updatedSk` ends with. */
export const idOfUpdatedSortKey = (sk: string): number => Number(sk.slice(sk.lastIndexOf('#') + 1));

export function codeShard(codeId: number, id: number): string {
  return `${codeId}#${id % CODE_SHARDS}`;
}

/** Names of the local and global indexes (as in `shared/store/tables.ts`). */
export const INDEX = {
  byEffective: { name: 'byEffective', sortKey: 'effSk' },
  byCodeEffective: { name: 'byCodeEffective', sortKey: 'codeEffSk' },
  byUpdated: { name: 'byUpdated', sortKey: 'updatedSk' },
} as const;
export type IndexName = keyof typeof INDEX;

/**
 * The local index and inclusive sort-key range that hold a read of a patient's readings: the
 * order's index (per code when a code is named), dated readings from `<from>` to `<to>#~` (every
 * id of the last millisecond), undated ones from `Z#<id>` to `Z#<id>#~`, open ends reaching the
 * whole dated (`0` .. `9~`) or undated (`Z#` .. `Z#~`) part.
 */
export function readingsRange(q: ReadingsQuery): { index: IndexName; from: string; to: string } {
  const index: IndexName = q.order === 'updated' ? 'byUpdated' : q.codeId === undefined ? 'byEffective' : 'byCodeEffective';
  const prefix = q.order === 'effective' && q.codeId !== undefined ? codePrefix(q.codeId) : '';
  const { time, undated } = q;
  if (!time && !undated) throw new Error('a read of readings names dated or undated ones');
  if (time && undated && (time.to !== undefined || undated.from !== undefined)) throw new Error('dated and undated readings are read together only as one stretch');
  const from = time ? (time.from === undefined ? DATED_START : instantKey(time.from)) : `${UNDATED}#${undated!.from === undefined ? '' : pad(undated!.from)}`;
  const to = undated ? `${UNDATED}#${undated.to === undefined ? '' : `${pad(undated.to)}#`}~` : time!.to === undefined ? DATED_END : `${instantKey(time!.to)}#~`;
  return { index, from: prefix + from, to: prefix + to };
}
