/**
 * THE keys of the observations table, layout 3 (docs/store.md#observations): readings kept in
 * blocks. Item kinds, all in the patient's partition `P#<patientId>` but the last two:
 *
 * - Block: `sk = B#<code>#<stretch>#<segment>`. The readings of one code whose effective start
 *   lies in one UTC hour (`stretch` = `2025-01-01T05`), or the code's undated readings
 *   (`stretch` = `Z`, after every hour); a stretch grows new segments when its last one is full,
 *   so one stretch is read as all its segments (a `begins_with` Query).
 * - Uuid claim: `sk = U#<header.uuid>` -> the reading's id, stretch and time of storing: one
 *   reading per patient and uuid, whatever its time or code (a conditional put).
 * - Update log: `sk = L#<lastUpdated>#<first id>` -> the ids one upload stored for the patient and
 *   their stretches: the order of last update (`_lastUpdated`), and what deleting the patient finds.
 * - Span statistics and code set: `sk = #SPAN` (the longest effective period; the codes the patient
 *   has readings of, for reads over every code).
 * - Day summaries: `sk = #DAY#...` (`dynamo-summaries.ts`).
 * - Id range: `pk = R#<id / 4096>`, `sk = <first id>` -> the patient and stretch of each id from
 *   the first to `last`: read by id (the greatest first id at or below the id, strongly consistent).
 * - Identifier claim: `pk = I#<system>#<value>` -> the id holding it (unique across the store).
 *
 * Instants in sort keys are `Date#toISOString()` (fixed width, so text order is time order), ids
 * and codes zero-padded, so every sort key orders as its values do.
 */
import { FIRST_INSTANT, LAST_INSTANT } from '../../omh/datetime';
import { keyText, pad } from '../../store/directory-keys';
import type { ObservationKey } from './dynamo-keys';

export type { ObservationKey } from './dynamo-keys';

const HOUR_MS = 3_600_000;

/** Ids one id-range partition covers: a range item never crosses one. */
export const RANGE_SPAN = 4096;

/** The stretch of undated readings: sorts after every hour. */
export const UNDATED_STRETCH = 'Z';

/**
 * Sort-key text of an instant (epoch ms), within the years a reading can have (1 to 9999), whose
 * texts are of one width: a bound beyond them (a search's open end) is clamped to them.
 */
export const instantKey = (ms: number): string => new Date(Math.min(LAST_INSTANT, Math.max(FIRST_INSTANT, ms))).toISOString();

/** The stretch a reading with this effective start belongs to: its UTC hour (`2025-01-01T05`), or `Z`. */
export const stretchOf = (start: number | undefined): string => (start === undefined ? UNDATED_STRETCH : instantKey(Math.floor(start / HOUR_MS) * HOUR_MS).slice(0, 13));

/** One code's stretch, as claims, logs and ranges name it. */
export interface StretchRef {
  codeId: number;
  stretch: string;
}

export const stretchText = (ref: StretchRef): string => `${ref.codeId}#${ref.stretch}`;

export function stretchFromText(text: string): StretchRef {
  const at = text.indexOf('#');
  return { codeId: Number(text.slice(0, at)), stretch: text.slice(at + 1) };
}

const SEGMENT_DIGITS = 4;

export const blockKeys = {
  patientPk: (patientId: number) => `P#${patientId}`,
  /** Every block of a code: `B#<code>#`. */
  codePrefix: (codeId: number) => `B#${pad(codeId)}#`,
  /** Every segment of one stretch. */
  stretchPrefix: (ref: StretchRef) => `B#${pad(ref.codeId)}#${ref.stretch}#`,
  block: (patientId: number, ref: StretchRef, segment: number): ObservationKey => ({
    pk: `P#${patientId}`,
    sk: `B#${pad(ref.codeId)}#${ref.stretch}#${String(segment).padStart(SEGMENT_DIGITS, '0')}`,
  }),
  claim: (patientId: number, uuid: string): ObservationKey => ({ pk: `P#${patientId}`, sk: `U#${uuid}` }),
  log: (patientId: number, lastUpdated: string, firstId: number): ObservationKey => ({ pk: `P#${patientId}`, sk: `L#${lastUpdated}#${pad(firstId)}` }),
  logPrefix: 'L#',
  range: (firstId: number): ObservationKey => ({ pk: `R#${Math.floor(firstId / RANGE_SPAN)}`, sk: pad(firstId) }),
  rangePk: (id: number) => `R#${Math.floor(id / RANGE_SPAN)}`,
  span: (patientId: number): ObservationKey => ({ pk: `P#${patientId}`, sk: '#SPAN' }),
  identifier: (system: string, value: string): ObservationKey => ({ pk: `I#${keyText(system)}#${keyText(value)}`, sk: 'I' }),
};

/** The patient whose partition a key (`blockKeys.patientPk`) is. */
export const patientOfPk = (pk: unknown): number => Number(String(pk).slice(2));

/** The stretch and segment a block key names. */
export function blockOf(sk: string): StretchRef & { segment: number } {
  // B#<15-digit code>#<stretch>#<segment>
  const codeEnd = sk.indexOf('#', 2);
  const segmentAt = sk.lastIndexOf('#');
  return { codeId: Number(sk.slice(2, codeEnd)), stretch: sk.slice(codeEnd + 1, segmentAt), segment: Number(sk.slice(segmentAt + 1)) };
}
