/**
 * A block: the readings of one patient, one code and one stretch of effective time, kept together
 * in one item (docs/store.md#blocks). This module turns readings into a block's three binary
 * attributes and back, nothing else (no keys, no I/O):
 *
 * - `c`, the facts: everything a search tests or orders by (id, effective time, last update,
 *   device, status, identifiers, the lifted values) and where each payload lies in `z`, as varints
 *   and short texts, one reading after another, deflated;
 * - `u`, the readings' `header.uuid`s, 16 bytes each (random bytes do not compress: kept apart);
 * - `z`, the payloads, each without its own `header.uuid` text (the block holds it in `u`: random
 *   hex compresses worst of all), deflated in groups of `GROUP` readings, each group with the
 *   block's first payload as its preset dictionary (kept in `c`, which every read inflates anyway):
 *   readings of one schema repeat most of their text, so a heart-rate reading's 400 bytes take
 *   about 20, and a reading is inflated with its group alone.
 *
 * A search decodes the facts alone, and inflates only the groups holding readings it keeps. The
 * payload comes back byte for byte: its bytes when the uploaded Base64 text is exactly what
 * encoding them gives back, else the text itself (`storedPayload` of the row layout), with the uuid
 * put back where it was taken from.
 *
 * Format 1 (kept by versions before groups) is still read: its `z` is one stream of the payloads as
 * uploaded, its values texts; a block is written in format 2 whenever it is written again.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { KeptValue, ObservationIdentifier, ReadingFacts, StoredObservation } from '../model';
import { decodeValues, storedPayload } from './dynamo-items';

/** The format `c` is written in; a reader meets only versions it knows (1 and 2). */
export const BLOCK_FORMAT = 2;

/** Payloads per deflated group: a search inflates a group of a few readings for each it keeps, a download every group. */
const GROUP = 8;

/** A first payload longer than this is no one's dictionary (a large reading alone in its segment). */
const DICTIONARY_LIMIT = 8 * 1024;

/** One deflated stream of `z`: its place, and the dictionary it was deflated with (the block's first payload). */
export interface PayloadStream {
  at: number;
  /** Bytes of `z` it takes; undefined: the rest of `z` (format 1's one stream). */
  length: number | undefined;
  dictionary: Buffer | undefined;
}

/** Where a reading's payload lies in `z`. */
export interface PayloadPlace {
  /** The stream holding it, its offset there once inflated, its length, whether it is the Base64 text itself. */
  stream: PayloadStream;
  at: number;
  length: number;
  isText: boolean;
  /** Where in the payload its `header.uuid` text was taken out (-1: it was not). */
  uuidAt: number;
}

/** A reading's facts as a block holds them: what a search tests, its uuid, and where its payload lies. */
export interface BlockFacts extends ReadingFacts {
  uuid: string;
  place: PayloadPlace;
}

export interface EncodedBlock {
  c: Uint8Array;
  u: Uint8Array;
  z: Uint8Array;
  /** Readings held. */
  n: number;
  /** Least and greatest effective start of the dated readings held (absent in the undated stretch). */
  lo?: number;
  hi?: number;
  /** Per member and unit: least and greatest value and how many (`values.ts` rules a block out by them). */
  s: string;
  /** Readings kept without lifted values (none in layout 3 but a store's own tests): `s` does not bound them. */
  unvalued: number;
}

/** Order of readings inside a block: effective start, then id; undated ones by id. */
export function blockOrder(a: ReadingFacts, b: ReadingFacts): number {
  const sa = a.effective?.start ?? Infinity;
  const sb = b.effective?.start ?? Infinity;
  return sa !== sb ? (sa < sb ? -1 : 1) : a.id - b.id;
}

// ---------------------------------------------------------------------------------------------
// Varints (LEB128 over non-negative integers up to 2^53, zigzag for signed), arithmetic rather
// than bitwise so that ids and instants beyond 32 bits survive. Ids are below 2^51 (a counter's),
// so the difference of two stays exact.

/** Decimal places a number is kept with as a scaled whole number (beyond: as text). */
const MAX_DIGITS = 9;

export class Writer {
  private buffer = Buffer.allocUnsafe(256);
  length = 0;

  private room(n: number) {
    if (this.length + n <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + n));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  uint(value: number) {
    this.room(8);
    let v = value;
    while (v >= 128) {
      this.buffer[this.length++] = (v % 128) + 128;
      v = Math.floor(v / 128);
    }
    this.buffer[this.length++] = v;
  }

  int(value: number) {
    this.uint(value >= 0 ? value * 2 : -value * 2 - 1);
  }

  /** A finite number: as a whole number of tenths, hundredths... when that gives it back exactly (most readings' values), else as its text. */
  number(value: number) {
    for (let digits = 0; digits <= MAX_DIGITS; digits++) {
      const scaled = Math.round(value * 10 ** digits);
      // Below 2^52, so that its zigzag form (twice it) is still exact.
      if (Math.abs(scaled) < 2 ** 52 && scaled / 10 ** digits === value) {
        this.uint(digits);
        this.int(scaled);
        return;
      }
    }
    this.uint(MAX_DIGITS + 1);
    this.text(String(value));
  }

  raw(value: Uint8Array) {
    this.uint(value.byteLength);
    this.room(value.byteLength);
    this.buffer.set(value, this.length);
    this.length += value.byteLength;
  }

  text(value: string) {
    const bytes = Buffer.byteLength(value, 'utf8');
    this.uint(bytes);
    this.room(bytes);
    this.buffer.write(value, this.length, 'utf8');
    this.length += bytes;
  }

  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

export class Reader {
  at = 0;
  constructor(private readonly buffer: Buffer) {}

  uint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = this.buffer[this.at++];
      if (byte === undefined) throw new Error('a block ends inside a number');
      value += (byte % 128) * scale;
      if (byte < 128) return value;
      scale *= 128;
    }
  }

  int(): number {
    const z = this.uint();
    return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
  }

  number(): number {
    const digits = this.uint();
    return digits > MAX_DIGITS ? Number(this.text()) : this.int() / 10 ** digits;
  }

  raw(): Buffer {
    const bytes = this.uint();
    this.at += bytes;
    return this.buffer.subarray(this.at - bytes, this.at);
  }

  text(): string {
    const bytes = this.uint();
    const value = this.buffer.toString('utf8', this.at, this.at + bytes);
    this.at += bytes;
    return value;
  }
}

// ---------------------------------------------------------------------------------------------

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function canonicalUuid(bytes: Buffer, at: number): string {
  const hex = bytes.toString('hex', at, at + 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Index of each distinct value in first-seen order. */
function firstSeenIndex<T>(values: readonly T[]): Map<T, number> {
  const index = new Map<T, number>();
  for (const v of values) if (!index.has(v)) index.set(v, index.size);
  return index;
}

/** Where a payload's `header.uuid` text lies in its bytes (-1: nowhere, or a payload kept as text). */
function uuidPlace(bytes: Buffer, isText: boolean, uuid: string): number {
  return isText || uuid === '' ? -1 : bytes.indexOf(uuid, 0, 'utf8');
}

/** The payloads' groups deflated one after another, each with the first payload as dictionary when there are others. */
function deflateGroups(payloads: readonly Buffer[]): { z: Buffer; lengths: number[]; dictionary: Buffer | undefined } {
  const dictionary = payloads.length > 1 && payloads[0]!.byteLength <= DICTIONARY_LIMIT ? payloads[0]! : undefined;
  const streams: Buffer[] = [];
  for (let at = 0; at < payloads.length; at += GROUP) {
    const group = Buffer.concat(payloads.slice(at, at + GROUP));
    streams.push(dictionary ? deflateRawSync(group, { dictionary }) : deflateRawSync(group));
  }
  return { z: Buffer.concat(streams), lengths: streams.map((z) => z.byteLength), dictionary };
}

/** Encodes readings (any order: they are kept in `blockOrder`) as one block. */
export function encodeBlock(input: readonly StoredObservation[]): EncodedBlock {
  const readings = [...input].sort(blockOrder);
  const dated = readings.length > 0 && readings[0]!.effective !== undefined;
  if (readings.some((r) => (r.effective !== undefined) !== dated)) throw new Error('a block holds dated or undated readings, not both');
  const updated = firstSeenIndex(readings.map((r) => r.lastUpdated));
  const devices = firstSeenIndex(readings.map((r) => r.deviceId));
  const statuses = firstSeenIndex(readings.map((r) => r.status));
  const units = firstSeenIndex(readings.flatMap((r) => (r.values ?? []).flatMap((v) => (v.unit === undefined ? [] : [v.unit]))));

  const payloads: Buffer[] = [];
  const uuidsAt: number[] = [];
  const textual: boolean[] = [];
  for (const r of readings) {
    const payload = storedPayload(r.data);
    const isText = typeof payload === 'string';
    const bytes = isText ? Buffer.from(payload, 'utf8') : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
    const uuidAt = uuidPlace(bytes, isText, r.uuid);
    payloads.push(uuidAt < 0 ? bytes : Buffer.concat([bytes.subarray(0, uuidAt), bytes.subarray(uuidAt + Buffer.byteLength(r.uuid, 'utf8'))]));
    uuidsAt.push(uuidAt);
    textual.push(isText);
  }
  const groups = deflateGroups(payloads);

  const facts = new Writer();
  facts.uint(BLOCK_FORMAT);
  facts.uint(readings.length);
  facts.uint(dated ? 1 : 0);
  facts.uint(updated.size);
  for (const text of updated.keys()) facts.text(text);
  facts.uint(devices.size);
  for (const device of devices.keys()) facts.int(device);
  facts.uint(statuses.size);
  for (const status of statuses.keys()) facts.text(status);
  facts.uint(units.size);
  for (const unit of units.keys()) facts.text(unit);
  facts.uint(GROUP);
  facts.raw(groups.dictionary ?? Buffer.alloc(0));
  facts.uint(groups.lengths.length);
  for (const length of groups.lengths) facts.uint(length);

  const uuids: Buffer[] = [];
  let previousId = 0;
  let previousStart = 0;
  readings.forEach((r, i) => {
    facts.int(r.id - previousId);
    previousId = r.id;
    if (r.effective) {
      facts.int(r.effective.start - previousStart);
      previousStart = r.effective.start;
      facts.uint(r.effective.kind === 'dateTime' ? 0 : 1 + zigzag(r.effective.end - r.effective.start));
    }
    facts.uint(updated.get(r.lastUpdated)!);
    facts.uint(devices.get(r.deviceId)!);
    facts.uint(statuses.get(r.status)!);
    if (CANONICAL_UUID.test(r.uuid)) {
      facts.uint(0);
      uuids.push(Buffer.from(r.uuid.replaceAll('-', ''), 'hex'));
    } else {
      facts.uint(1);
      facts.text(r.uuid);
    }
    facts.uint(payloads[i]!.byteLength * 2 + (textual[i] ? 1 : 0));
    facts.uint(uuidsAt[i]! + 1);
    // Values as numbers, not text: a value search reads every reading's, and builds only the others of those it keeps.
    facts.uint(r.values === undefined ? 0 : r.values.length + 1);
    for (const v of r.values ?? []) {
      facts.uint(v.member);
      facts.uint(v.unit === undefined ? 0 : units.get(v.unit)! + 1);
      facts.number(v.value);
    }
    if (r.identifiers.length === 0) facts.uint(0);
    else {
      facts.uint(1);
      facts.text(JSON.stringify(r.identifiers));
    }
  });

  const starts = readings.flatMap((r) => (r.effective ? [r.effective.start] : []));
  return {
    c: deflateRawSync(facts.bytes()),
    u: Buffer.concat(uuids),
    z: groups.z,
    n: readings.length,
    ...(starts.length > 0 ? { lo: starts[0], hi: starts[starts.length - 1] } : {}),
    s: valueStats(readings),
    unvalued: readings.filter((r) => r.values === undefined).length,
  };
}

const zigzag = (v: number) => (v >= 0 ? v * 2 : -v * 2 - 1);
const unzigzag = (z: number) => (z % 2 === 0 ? z / 2 : -(z + 1) / 2);

/** Whether a block's facts are in the format this version writes, or an earlier one it still reads (`block-recode.ts`). */
export const factsFormat = (c: Uint8Array): 'current' | 'earlier' => (new Reader(inflateRawSync(c)).uint() === BLOCK_FORMAT ? 'current' : 'earlier');

/** A test of a reading's kept values alone (undefined: it has none), before anything else of it is built. */
export type ValuesTest = (values: KeptValue[] | undefined) => boolean;

/**
 * The facts of the readings of a block, in block order (no payload is inflated): every reading, or
 * those whose values pass `mayKeep` (the others are read past without building them).
 */
export function decodeFacts(block: { c: Uint8Array; u: Uint8Array }, patientId: number, codeId: number, mayKeep?: ValuesTest): BlockFacts[] {
  const facts = new Reader(inflateRawSync(block.c));
  const uuids = Buffer.from(block.u.buffer, block.u.byteOffset, block.u.byteLength);
  const version = facts.uint();
  if (version !== 1 && version !== BLOCK_FORMAT) throw new Error(`a block's facts are in format ${version}, which this version does not read`);
  const n = facts.uint();
  const dated = facts.uint() === 1;
  const updated = Array.from({ length: facts.uint() }, () => facts.text());
  const devices = Array.from({ length: facts.uint() }, () => facts.int());
  const statuses = Array.from({ length: facts.uint() }, () => facts.text());
  const { units, group, streams } = version === 1 ? format1Layout() : layoutOf(facts);

  const out: BlockFacts[] = [];
  let id = 0;
  let start = 0;
  let uuidAt = 0;
  let payloadAt = 0;
  for (let i = 0; i < n; i++) {
    id += facts.int();
    let kindEnd = 0;
    if (dated) {
      start += facts.int();
      kindEnd = facts.uint();
    }
    const lastUpdated = updated[facts.uint()]!;
    const deviceId = devices[facts.uint()]!;
    const status = statuses[facts.uint()]!;
    const ownUuidAt = uuidAt;
    const inlineUuid = facts.uint() === 0 ? undefined : facts.text();
    if (inlineUuid === undefined) uuidAt += 16;
    const payload = facts.uint();
    const payloadLength = Math.floor(payload / 2);
    const stream = streams[Math.floor(i / group)]!;
    if (i % group === 0) payloadAt = 0;
    const readingAt = payloadAt;
    payloadAt += payloadLength;
    const uuidTakenAt = version === 1 ? -1 : facts.uint() - 1;
    const values = version === 1 ? textValues(facts) : numberValues(facts, units);
    const identifiersText = facts.uint() === 0 ? undefined : facts.text();
    if (mayKeep && !mayKeep(values)) continue;
    const reading: BlockFacts = {
      id,
      patientId,
      codeId,
      deviceId,
      status,
      identifiers: identifiersText === undefined ? [] : (JSON.parse(identifiersText) as ObservationIdentifier[]),
      effective: !dated ? undefined : kindEnd === 0 ? { kind: 'dateTime', start, end: start } : { kind: 'period', start, end: start + unzigzag(kindEnd - 1) },
      lastUpdated,
      uuid: inlineUuid ?? canonicalUuid(uuids, ownUuidAt),
      place: { stream, at: readingAt, length: payloadLength, isText: payload % 2 === 1, uuidAt: uuidTakenAt },
    };
    if (values !== undefined) reading.values = values;
    out.push(reading);
  }
  return out;
}

/** How a block's values name units and its payloads lie in `z`: what the facts' header says after the block's lists. */
interface PayloadLayout {
  /** The units values name by index. */
  units: readonly string[];
  /** Readings per stream. */
  group: number;
  streams: PayloadStream[];
}

/** Format 1: values carry their units as text, and `z` is one stream of every payload. */
const format1Layout = (): PayloadLayout => ({ units: [], group: Infinity, streams: [{ at: 0, length: undefined, dictionary: undefined }] });

/** Format 2: the units, the group size, the dictionary, then each group's stream length. */
function layoutOf(facts: Reader): PayloadLayout {
  const units = Array.from({ length: facts.uint() }, () => facts.text());
  const group = facts.uint();
  const dictionary = facts.raw();
  const streams: PayloadStream[] = [];
  for (let count = facts.uint(), at = 0; count > 0; count--) {
    const length = facts.uint();
    streams.push({ at, length, dictionary: dictionary.byteLength > 0 ? dictionary : undefined });
    at += length;
  }
  return { units, group, streams };
}

function textValues(facts: Reader): KeptValue[] | undefined {
  return facts.uint() === 0 ? undefined : decodeValues(facts.text());
}

function numberValues(facts: Reader, units: readonly string[]): KeptValue[] | undefined {
  const count = facts.uint();
  if (count === 0) return undefined;
  const values: KeptValue[] = [];
  for (let k = 1; k < count; k++) {
    const member = facts.uint();
    const unit = facts.uint();
    const value = facts.number();
    values.push(unit === 0 ? { member, value } : { member, value, unit: units[unit - 1]! });
  }
  return values;
}

/**
 * The payloads of one block item: each stream inflated the first time a reading of it is asked
 * for, so a search that keeps a few readings of a block inflates a few groups, a download each once.
 */
export class BlockPayloads {
  private readonly inflated = new Map<PayloadStream, Buffer>();
  private readonly z: Buffer;
  /** Where a payload is put back together with its uuid (one buffer per block, not one per reading). */
  private scratch = Buffer.allocUnsafe(0);

  constructor(z: Uint8Array) {
    this.z = Buffer.from(z.buffer, z.byteOffset, z.byteLength);
  }

  /** The uploaded Base64 text of one reading's payload. */
  of({ place, uuid }: BlockFacts): string {
    const stream = this.bytesOf(place.stream);
    const end = place.at + place.length;
    if (place.isText) return stream.toString('utf8', place.at, end);
    if (place.uuidAt < 0) return stream.toString('base64', place.at, end);
    const size = place.length + Buffer.byteLength(uuid, 'utf8');
    if (this.scratch.byteLength < size) this.scratch = Buffer.allocUnsafe(Math.max(size, 2 * this.scratch.byteLength));
    const at = place.at + place.uuidAt;
    stream.copy(this.scratch, 0, place.at, at);
    const uuidEnd = place.uuidAt + this.scratch.write(uuid, place.uuidAt, 'utf8');
    stream.copy(this.scratch, uuidEnd, at, end);
    return this.scratch.toString('base64', 0, size);
  }

  private bytesOf(stream: PayloadStream): Buffer {
    let bytes = this.inflated.get(stream);
    if (bytes === undefined) {
      const deflated = this.z.subarray(stream.at, stream.length === undefined ? undefined : stream.at + stream.length);
      bytes = stream.dictionary ? inflateRawSync(deflated, { dictionary: stream.dictionary }) : inflateRawSync(deflated);
      this.inflated.set(stream, bytes);
    }
    return bytes;
  }
}

/**
 * Per member and unit as uploaded: `member;unit;least;greatest;count`, joined by `,` (the unit
 * `=` and percent-encoded, empty for the member's first unit, which a reading does not name).
 */
function valueStats(readings: readonly StoredObservation[]): string {
  const stats = new Map<string, { lo: number; hi: number; n: number }>();
  for (const r of readings) {
    for (const v of r.values ?? []) {
      const key = `${v.member};${v.unit === undefined ? '' : `=${encodeURIComponent(v.unit)}`}`;
      const s = stats.get(key);
      if (!s) stats.set(key, { lo: v.value, hi: v.value, n: 1 });
      else {
        if (v.value < s.lo) s.lo = v.value;
        if (v.value > s.hi) s.hi = v.value;
        s.n += 1;
      }
    }
  }
  return [...stats].map(([key, s]) => `${key};${s.lo};${s.hi};${s.n}`).join(',');
}

export interface MemberStats {
  member: number;
  /** As uploaded; undefined for the member's first allowed unit. */
  unit: string | undefined;
  lo: number;
  hi: number;
  count: number;
}

export function decodeValueStats(text: string): MemberStats[] {
  if (text === '') return [];
  return text.split(',').map((entry) => {
    const [member, unit, lo, hi, count] = entry.split(';');
    return { member: Number(member), unit: unit === '' ? undefined : decodeURIComponent(unit!.slice(1)), lo: Number(lo), hi: Number(hi), count: Number(count) };
  });
}
