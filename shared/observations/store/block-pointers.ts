/**
 * The ways to a reading other than its time (layout 3, keys in `block-keys.ts`): by id (id ranges)
 * and by last update (the update log). Both are written per upload and patient, not per reading:
 * an upload's ids are consecutive (`newIds`), so one range item names them all, and one log item
 * lists what the upload stored for the patient. Each names, per id, the stretch that holds it.
 *
 * They are written before the blocks (`block-write.ts`), so a reading in a block always has them;
 * a pointer whose reading never landed (the upload stopped, or failed and was undone) leads to a
 * stretch without that id, which every reader treats as no reading.
 */
import { Reader, Writer } from './block-codec';
import { blockKeys, RANGE_SPAN, stretchFromText, stretchText, type StretchRef } from './block-keys';

export type PointerItem = Record<string, unknown>;

/** A stored reading as its pointers name it. */
export interface Pointed {
  id: number;
  patientId: number;
  lastUpdated: string;
  ref: StretchRef;
}

/** Ids (ascending) and the index of each one's stretch among `st`, as one binary. */
function encodeIds(ids: readonly number[], stretchIndex: readonly number[]): Uint8Array {
  const w = new Writer();
  w.uint(ids.length);
  let previous = 0;
  ids.forEach((id, n) => {
    w.uint(id - previous);
    previous = id;
    w.uint(stretchIndex[n]!);
  });
  return new Uint8Array(w.bytes());
}

function decodeIds(bytes: Uint8Array): Array<{ id: number; stretch: number }> {
  const r = new Reader(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  const n = r.uint();
  const out = new Array<{ id: number; stretch: number }>(n);
  let id = 0;
  for (let i = 0; i < n; i++) {
    id += r.uint();
    out[i] = { id, stretch: r.uint() };
  }
  return out;
}

/** The ids, ascending, with their stretches as an index into a list of distinct stretch texts. */
function idsAndStretches(readings: readonly Pointed[]) {
  const sorted = [...readings].sort((a, b) => a.id - b.id);
  const texts = new Map<string, number>();
  const index = sorted.map((r) => {
    const text = stretchText(r.ref);
    if (!texts.has(text)) texts.set(text, texts.size);
    return texts.get(text)!;
  });
  return { ids: sorted.map((r) => r.id), index, st: [...texts.keys()] };
}

/** Runs of consecutive ids of one patient, each within one id-range partition. */
function rangeRuns(readings: readonly Pointed[]): Pointed[][] {
  const sorted = [...readings].sort((a, b) => a.id - b.id);
  const runs: Pointed[][] = [];
  for (const r of sorted) {
    const run = runs[runs.length - 1];
    const last = run?.[run.length - 1];
    if (run && last && last.id + 1 === r.id && last.patientId === r.patientId && Math.floor(last.id / RANGE_SPAN) === Math.floor(r.id / RANGE_SPAN)) run.push(r);
    else runs.push([r]);
  }
  return runs;
}

/** The range items and log items for readings about to be stored (any patients, any times of storing). */
export function pointerItems(readings: readonly Pointed[]): PointerItem[] {
  const ranges = rangeRuns(readings).map((run) => {
    const { ids, index, st } = idsAndStretches(run);
    return { ...blockKeys.range(ids[0]!), last: ids[ids.length - 1]!, p: run[0]!.patientId, st, x: encodeIds(ids, index) };
  });
  const logs = new Map<string, Pointed[]>();
  for (const r of readings) {
    const key = `${r.patientId}\u0000${r.lastUpdated}`;
    const group = logs.get(key);
    if (group) group.push(r);
    else logs.set(key, [r]);
  }
  const logItems = [...logs.values()].map((group) => {
    const { ids, index, st } = idsAndStretches(group);
    return { ...blockKeys.log(group[0]!.patientId, group[0]!.lastUpdated, ids[0]!), st, x: encodeIds(ids, index) };
  });
  return [...ranges, ...logItems];
}

/** What a range item says of one id: the patient and stretch, or undefined when the id is not in it. */
export function rangeHolds(item: PointerItem | undefined, id: number): { patientId: number; ref: StretchRef } | undefined {
  if (!item || id > Number(item.last)) return undefined;
  const st = item.st as string[];
  const entry = decodeIds(item.x as Uint8Array).find((e) => e.id === id);
  return entry ? { patientId: Number(item.p), ref: stretchFromText(st[entry.stretch]!) } : undefined;
}

/** Every id a log or range item names, ascending, with its stretch. */
export function pointedIds(item: PointerItem): Array<{ id: number; ref: StretchRef }> {
  const refs = (item.st as string[]).map(stretchFromText);
  return decodeIds(item.x as Uint8Array).map((e) => ({ id: e.id, ref: refs[e.stretch]! }));
}

/** The last update a log item's key names. */
export const logUpdated = (item: PointerItem): string => {
  const sk = String(item.sk);
  return sk.slice(2, sk.lastIndexOf('#'));
};
