import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StoredObservation } from '../../../../shared/observations/model';
import { blockOrder, decodeFacts, decodeValueStats, encodeBlock, inflatePayloads, payloadOf, type ValuesTest } from '../../../../shared/observations/store/block-codec';

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
  const block = encodeBlock(readings);
  const payloads = inflatePayloads(block);
  return decodeFacts(block, readings[0]!.patientId, readings[0]!.codeId, mayKeep).map(({ payloadAt: _a, payloadLength: _l, payloadIsText: _t, ...facts }) => ({ ...facts, data: payloadOf(payloads, { payloadAt: _a, payloadLength: _l, payloadIsText: _t } as never) }));
}

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
    expect(bytes / 60).toBeLessThan(60);
    expect([block.n, block.lo, block.hi]).toEqual([60, T0, T0 + 59 * 60_000]);
    expect(decodeValueStats(block.s)).toEqual([{ member: 0, unit: undefined, lo: 55, hi: 84, count: 60 }]);
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

  it('round-trips any readings, and reads past those whose values a test rules out (the others whole, payloads included)', () => {
    const instant = fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 });
    const arbitraryReading = fc.record({
      id: fc.integer({ min: 1, max: 2 ** 51 }),
      deviceId: fc.integer({ min: -5, max: 2 ** 40 }),
      status: fc.constantFrom('final', 'amended', 'entered-in-error'),
      identifiers: fc.array(fc.record({ system: fc.string(), value: fc.string() }, { requiredKeys: ['value'] }), { maxLength: 2 }),
      data: fc.oneof(fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('base64')), fc.string({ maxLength: 50 })),
      uuid: fc.oneof(fc.uuid().map((u) => u.toLowerCase()), fc.string({ maxLength: 40 })),
      start: instant,
      length: fc.integer({ min: -1e9, max: 1e12 }),
      kind: fc.constantFrom('dateTime' as const, 'period' as const),
      lastUpdated: fc.constantFrom('2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.001Z', '2026-12-07T05:00:00.000Z'),
      values: fc.option(fc.array(fc.record({ member: fc.nat(40), value: fc.double({ noNaN: true, noDefaultInfinity: true }) }), { maxLength: 3 }), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.uniqueArray(arbitraryReading, { selector: (r) => r.id, minLength: 1, maxLength: 20 }), fc.boolean(), (rows, dated) => {
        const readings = rows.map(({ start, length, kind, values, ...r }) => ({
          ...r,
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
