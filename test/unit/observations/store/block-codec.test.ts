import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StoredObservation } from '../../../../shared/observations/model';
import { BlockPayloads, blockOrder, decodeFacts, decodeValueStats, encodeBlock, type ValuesTest } from '../../../../shared/observations/store/block-codec';
import { FORMAT_1_BLOCK } from '../../../fixtures/block-format-1';

const T0 = Date.UTC(2025, 0, 1, 5);

function reading(over: Partial<StoredObservation> = {}): StoredObservation {
  const uuid = randomUUID();
  return {
    id: 1000,
    patientId: 4,
    codeId: 7,
    deviceId: 3,
    status: 'final',
    identifiers: [],
    data: Buffer.from(`{"header":{"uuid":"${uuid}"},"body":{"heart_rate":{"value":61,"unit":"beats/min"}}}`).toString('base64'),
    uuid,
    effective: { kind: 'dateTime', start: T0, end: T0 },
    lastUpdated: '2025-01-01T06:00:00.000Z',
    values: [{ member: 0, value: 61 }],
    ...over,
  };
}

/** Every reading of an encoded block (those whose values pass `mayKeep`), payloads included, as the store gives them back. */
function decoded(readings: readonly StoredObservation[], mayKeep?: ValuesTest): StoredObservation[] {
  return decodedBlock(encodeBlock(readings), readings[0]!.patientId, readings[0]!.codeId, mayKeep);
}

function decodedBlock(block: { c: Uint8Array; u: Uint8Array; z: Uint8Array }, patientId: number, codeId: number, mayKeep?: ValuesTest): StoredObservation[] {
  const payloads = new BlockPayloads(block.z);
  return decodeFacts(block, patientId, codeId, mayKeep).map((facts) => {
    const { place: _p, ...reading } = facts;
    return { ...reading, data: payloads.of(facts) };
  });
}

/** A JSON payload naming its own uuid, as every reading's header does. */
const payloadNaming = (uuid: string, value: number, extra = '') => Buffer.from(`{"header":{"uuid":"${uuid}"${extra}},"body":{"heart_rate":{"value":${value},"unit":"beats/min"}}}`).toString('base64');

describe('block codec', () => {
  it('gives every reading back as stored, in effective order then id, payloads byte for byte', () => {
    const readings = [
      reading({ id: 1005, effective: { kind: 'dateTime', start: T0 + 60_000, end: T0 + 60_000 } }),
      reading({ id: 1003, identifiers: [{ system: 'https://ids.test', value: 'a' }, { value: 'bare' }], status: 'preliminary', deviceId: 9 }),
      reading({ id: 1004, effective: { kind: 'period', start: T0 + 1, end: T0 + 1 } }),
      reading({ id: 1001, effective: { kind: 'period', start: T0 + 5, end: T0 - 100 }, data: 'not canonical base64!', values: undefined }),
      reading({ id: 2 ** 52, effective: { kind: 'period', start: T0 + 60_000, end: T0 + 86_400_000 }, uuid: 'Not-A-UUID', lastUpdated: '2025-01-02T00:00:00.000Z' }),
      reading({ id: 1002, values: [{ member: 1, value: -0.25, unit: 'odd;unit:with%,signs' }, { member: 0, value: 1e21 }], data: 'b3RoZXI=' }),
    ];
    expect(decoded(readings)).toEqual([...readings].sort(blockOrder));
  });

  it('keeps undated readings in id order, and refuses a block of both kinds', () => {
    const undated = [reading({ id: 9, effective: undefined }), reading({ id: 3, effective: undefined })];
    expect(decoded(undated).map((r) => r.id)).toEqual([3, 9]);
    expect(encodeBlock(undated).lo).toBeUndefined();
    expect(() => encodeBlock([reading(), reading({ effective: undefined })])).toThrow(/dated or undated/);
  });

  it('holds a minute of heart rate in a few dozen bytes a reading', () => {
    const readings = Array.from({ length: 60 }, (_, i) => reading({ id: 5000 + i, effective: { kind: 'dateTime', start: T0 + i * 60_000, end: T0 + i * 60_000 }, values: [{ member: 0, value: 55 + (i % 30) }] }));
    const block = encodeBlock(readings);
    const bytes = block.c.byteLength + block.u.byteLength + block.z.byteLength;
    expect(bytes / 60).toBeLessThan(40);
    expect([block.n, block.lo, block.hi]).toEqual([60, T0, T0 + 59 * 60_000]);
    expect(decodeValueStats(block.s)).toEqual([{ member: 0, unit: undefined, lo: 55, hi: 84, count: 60 }]);
  });

  it('takes each payload out of its own group: a reading kept inflates its group alone', () => {
    const readings = Array.from({ length: 40 }, (_, i) => {
      const uuid = randomUUID();
      return reading({ id: 7000 + i, uuid, data: payloadNaming(uuid, 50 + i), effective: { kind: 'dateTime', start: T0 + i * 60_000, end: T0 + i * 60_000 }, values: [{ member: 0, value: 50 + i }] });
    });
    const block = encodeBlock(readings);
    const facts = decodeFacts(block, 4, 7);
    expect(new Set(facts.map((f) => f.place.stream)).size).toBe(5);
    const payloads = new BlockPayloads(block.z);
    const inflated = (payloads as unknown as { inflated: Map<unknown, Buffer> }).inflated;
    expect(payloads.of(facts[33]!)).toBe(readings[33]!.data);
    expect([...inflated.keys()]).toEqual([facts[33]!.place.stream]);
    expect(facts.every((f) => f.place.uuidAt > 0)).toBe(true);
    expect(facts.map((f) => payloads.of(f))).toEqual(readings.map((r) => r.data));
    expect(inflated.size).toBe(5);
  });

  it("puts a payload's uuid back wherever it was taken from, and leaves a payload that does not name it as it is", () => {
    const uuid = randomUUID();
    const twice = payloadNaming(uuid, 61, `,"again":"${uuid}"`);
    const other = payloadNaming(randomUUID(), 62);
    const readings = [reading({ id: 1, uuid, data: twice }), reading({ id: 2, data: other }), reading({ id: 3, uuid: '', data: payloadNaming('', 63) })];
    const facts = decodeFacts(encodeBlock(readings), 4, 7);
    expect(facts.map((f) => f.place.uuidAt)).toEqual([Buffer.from(twice, 'base64').indexOf(uuid), -1, -1]);
    expect(decoded(readings).map((r) => r.data)).toEqual([twice, other, payloadNaming('', 63)]);
  });

  it('keeps values as numbers, exactly: decimals, large and tiny ones, units of their own', () => {
    const values = [0.1, 0.3, -12.345, 1e21, 2 ** 53 + 2, 5e-324, 123456.789012345, -0.000001, 98.6].map((value, member) => ({ member, value, unit: member % 2 === 0 ? undefined : `u${member % 3}` }));
    const readings = [reading({ values: values.map(({ unit, ...v }) => (unit === undefined ? v : { ...v, unit })) })];
    expect(decoded(readings)[0]!.values).toEqual(readings[0]!.values);
  });

  it('reads a block kept in format 1 (one stream of the payloads as uploaded, values as text)', () => {
    const { c, u, z, readings } = FORMAT_1_BLOCK;
    const block = { c: Buffer.from(c, 'base64'), u: Buffer.from(u, 'base64'), z: Buffer.from(z, 'base64') };
    expect(decodedBlock(block, 4, 7)).toEqual([...readings].sort(blockOrder));
    const high: ValuesTest = (values) => values?.some((v) => v.value > 63) ?? false;
    expect(decodedBlock(block, 4, 7, high).map((r) => r.id)).toEqual([1004, 1005]);
    expect(decodeFacts(block, 4, 7).every((f) => f.place.uuidAt === -1 && f.place.stream.length === undefined)).toBe(true);
  });

  it('keeps the value bounds of each member and unit', () => {
    const block = encodeBlock([
      reading({ values: [{ member: 0, value: 70, unit: 'kg' }, { member: 1, value: 3 }] }),
      reading({ id: 1001, values: [{ member: 0, value: 154.3, unit: 'lb' }, { member: 1, value: -1 }] }),
      reading({ id: 1002, values: [{ member: 0, value: 80, unit: 'kg' }] }),
      reading({ id: 1003, values: [{ member: 0, value: 5, unit: '' }] }),
    ]);
    expect(decodeValueStats(block.s)).toEqual([
      { member: 0, unit: 'kg', lo: 70, hi: 80, count: 2 },
      { member: 1, unit: undefined, lo: -1, hi: 3, count: 2 },
      { member: 0, unit: 'lb', lo: 154.3, hi: 154.3, count: 1 },
      { member: 0, unit: '', lo: 5, hi: 5, count: 1 },
    ]);
  });

  const NAMES_ITS_UUID = '(a payload naming its uuid)';

  it('round-trips any readings, and reads past those whose values a test rules out (the others whole, payloads included)', () => {
    const instant = fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 });
    const arbitraryReading = fc.record({
      id: fc.integer({ min: 1, max: 2 ** 51 }),
      deviceId: fc.integer({ min: -5, max: 2 ** 40 }),
      status: fc.constantFrom('final', 'amended', 'entered-in-error'),
      identifiers: fc.array(fc.record({ system: fc.string(), value: fc.string() }, { requiredKeys: ['value'] }), { maxLength: 2 }),
      data: fc.oneof(fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('base64')), fc.string({ maxLength: 50 }), fc.constant(NAMES_ITS_UUID)),
      uuid: fc.oneof(fc.uuid().map((u) => u.toLowerCase()), fc.string({ maxLength: 40 })),
      start: instant,
      length: fc.integer({ min: -1e9, max: 1e12 }),
      kind: fc.constantFrom('dateTime' as const, 'period' as const),
      lastUpdated: fc.constantFrom('2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.001Z', '2026-12-07T05:00:00.000Z'),
      values: fc.option(fc.array(fc.record({ member: fc.nat(40), value: fc.double({ noNaN: true, noDefaultInfinity: true }), unit: fc.string({ maxLength: 6 }) }, { requiredKeys: ['member', 'value'] }), { maxLength: 3 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.uniqueArray(arbitraryReading, { selector: (r) => r.id, minLength: 1, maxLength: 20 }), fc.boolean(), (rows, dated) => {
        const readings = rows.map(({ start, length, kind, values, data, ...r }, i) => ({
          ...r,
          data: data === NAMES_ITS_UUID ? payloadNaming(r.uuid, i) : data,
          patientId: 1,
          codeId: 2,
          effective: dated ? (kind === 'dateTime' ? { kind, start, end: start } : { kind, start, end: start + length }) : undefined,
          ...(values !== undefined ? { values: values.map((v) => ({ ...v, value: Object.is(v.value, -0) ? 0 : v.value })) } : {}),
        })) as StoredObservation[];
        expect(decoded(readings)).toEqual([...readings].sort(blockOrder));
        const positive: ValuesTest = (values) => values?.some((v) => v.value > 0) ?? false;
        expect(decoded(readings, positive)).toEqual([...readings].sort(blockOrder).filter((r) => positive(r.values)));
      }),
      { numRuns: 300 },
    );
  });
});
