/**
 * A block: the readings of one patient, one code and one stretch of effective time, kept together
 * in one item (docs/store.md#blocks). This module turns readings into a block's three binary
 * attributes and back, nothing else (no keys, no I/O):
 *
 * - `c`, the facts: everything a search tests or orders by (id, effective time, last update,
 *   device, status, identifiers, the lifted values) and how each payload is stored, as varints and
 *   short texts, one reading after another, deflated;
 * - `u`, the readings' `header.uuid`s, 16 bytes each (random bytes do not compress: kept apart);
 * - `z`, the payloads, deflated as one stream: readings of one schema repeat most of their
 *   text, so a heart-rate reading's 450 bytes take about 45.
 *
 * A search decodes the facts alone, and the payloads only of blocks where some reading matched. The
 * payload comes back byte for byte: its bytes when the uploaded Base64 text is exactly what
 * encoding them gives back, else the text itself (`storedPayload` of the row layout).
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { KeptValue, ObservationIdentifier, ReadingFacts, StoredObservation } from '../model';
import { decodeValues, encodeValues, storedPayload } from './dynamo-items';

/** The format of `c`; a reader meets only versions it knows. */
const FACTS_VERSION = 1;

/** A reading's facts as a block holds them: what a search tests, its uuid, and where its payload lies in `z`. */
export interface BlockFacts extends ReadingFacts {
  uuid: string;
  /** Offset of the payload in the inflated `z`, its length, and whether it is the Base64 text itself. */
  payloadAt: number;
  payloadLength: number;
  payloadIsText: boolean;
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
function dictionary<T>(values: readonly T[]): Map<T, number> {
  const index = new Map<T, number>();
  for (const v of values) if (!index.has(v)) index.set(v, index.size);
  return index;
}

/** Encodes readings (any order: they are kept in `blockOrder`) as one block. */
export function encodeBlock(input: readonly StoredObservation[]): EncodedBlock {
  const readings = [...input].sort(blockOrder);
  const dated = readings.length > 0 && readings[0]!.effective !== undefined;
  if (readings.some((r) => (r.effective !== undefined) !== dated)) throw new Error('a block holds dated or undated readings, not both');
  const updated = dictionary(readings.map((r) => r.lastUpdated));
  const devices = dictionary(readings.map((r) => r.deviceId));
  const statuses = dictionary(readings.map((r) => r.status));

  const facts = new Writer();
  facts.uint(FACTS_VERSION);
  facts.uint(readings.length);
  facts.uint(dated ? 1 : 0);
  facts.uint(updated.size);
  for (const text of updated.keys()) facts.text(text);
  facts.uint(devices.size);
  for (const device of devices.keys()) facts.int(device);
  facts.uint(statuses.size);
  for (const status of statuses.keys()) facts.text(status);

  const uuids: Buffer[] = [];
  const payloads: Array<Uint8Array | Buffer> = [];
  let previousId = 0;
  let previousStart = 0;
  for (const r of readings) {
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
    const payload = storedPayload(r.data);
    const isText = typeof payload === 'string';
    const bytes = isText ? Buffer.from(payload, 'utf8') : payload;
    facts.uint(bytes.byteLength * 2 + (isText ? 1 : 0));
    payloads.push(bytes);
    if (r.values === undefined) facts.uint(0);
    else {
      facts.uint(1);
      facts.text(encodeValues(r.values));
    }
    if (r.identifiers.length === 0) facts.uint(0);
    else {
      facts.uint(1);
      facts.text(JSON.stringify(r.identifiers));
    }
  }

  const starts = readings.flatMap((r) => (r.effective ? [r.effective.start] : []));
  return {
    c: deflateRawSync(facts.bytes()),
    u: Buffer.concat(uuids),
    z: deflateRawSync(Buffer.concat(payloads)),
    n: readings.length,
    ...(starts.length > 0 ? { lo: starts[0], hi: starts[starts.length - 1] } : {}),
    s: valueStats(readings),
    unvalued: readings.filter((r) => r.values === undefined).length,
  };
}

const zigzag = (v: number) => (v >= 0 ? v * 2 : -v * 2 - 1);
const unzigzag = (z: number) => (z % 2 === 0 ? z / 2 : -(z + 1) / 2);

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
  if (version !== FACTS_VERSION) throw new Error(`a block's facts are in format ${version}, which this version does not read`);
  const n = facts.uint();
  const dated = facts.uint() === 1;
  const updated = Array.from({ length: facts.uint() }, () => facts.text());
  const devices = Array.from({ length: facts.uint() }, () => facts.int());
  const statuses = Array.from({ length: facts.uint() }, () => facts.text());

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
    const readingAt = payloadAt;
    payloadAt += payloadLength;
    const values: KeptValue[] | undefined = facts.uint() === 0 ? undefined : decodeValues(facts.text());
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
      payloadAt: readingAt,
      payloadLength,
      payloadIsText: payload % 2 === 1,
    };
    if (values !== undefined) reading.values = values;
    out.push(reading);
  }
  return out;
}

/** The payloads of a block, inflated once; `payloadOf` takes one reading's out of them. */
export const inflatePayloads = (block: { z: Uint8Array }): Buffer => inflateRawSync(block.z);

/** The uploaded Base64 text of one reading's payload. */
export function payloadOf(payloads: Buffer, facts: BlockFacts): string {
  const end = facts.payloadAt + facts.payloadLength;
  return facts.payloadIsText ? payloads.toString('utf8', facts.payloadAt, end) : payloads.toString('base64', facts.payloadAt, end);
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
