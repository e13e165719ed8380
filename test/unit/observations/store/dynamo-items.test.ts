/** The stored form of a reading: the payload as bytes when that keeps it byte for byte, else as the uploaded text. */
import { describe, expect, it } from 'vitest';
import { fromItem, ROW_FIELDS, storedPayload, toItem, uploadedPayload } from '../../../../shared/observations/store/dynamo-items';
import type { StoredObservation } from '../../../../shared/observations/model';
import { itemSize } from '../../../../shared/store/capacity';

const base64 = Buffer.from(JSON.stringify({ header: { uuid: 'a' }, body: { heart_rate: { value: 60 } } })).toString('base64');

describe('payloads', () => {
  it('are stored as bytes when encoding them gives the uploaded text back, a quarter smaller', () => {
    const stored = storedPayload(base64);
    expect(stored).toBeInstanceOf(Uint8Array);
    expect(uploadedPayload(stored)).toBe(base64);
    expect(itemSize({ data: stored })).toBeLessThan(itemSize({ data: base64 }) * 0.8);
  });

  it.each([
    ['without its padding', base64.replace(/=+$/, '')],
    ['with a line break', `${base64.slice(0, 20)}\n${base64.slice(20)}`],
    ['in the URL-safe alphabet', Buffer.from('\u00ff\u00fe>?').toString('base64url')],
  ])('are stored as the uploaded text when it is Base64 %s, so they come back byte for byte', (_what, text) => {
    expect(storedPayload(text)).toBe(text);
    expect(uploadedPayload(storedPayload(text))).toBe(text);
  });

  it('come back from a stored row exactly as uploaded', () => {
    const reading = {
      id: 7, patientId: 3, codeId: 2, deviceId: 5, status: 'final', identifiers: [], data: base64, uuid: 'a',
      effective: { kind: 'dateTime' as const, start: 1, end: 1 }, lastUpdated: '2025-01-01T00:00:00.000Z',
    };
    expect(toItem(reading).data).toBeInstanceOf(Uint8Array);
    expect(fromItem(toItem(reading))).toEqual(reading);
  });
});

describe('the fields a search reads of each row', () => {
  const reading: StoredObservation = {
    id: 7, patientId: 3, codeId: 2, deviceId: 5, status: 'final', identifiers: [], data: base64, uuid: 'a',
    effective: { kind: 'dateTime', start: 1, end: 1 }, lastUpdated: '2025-01-01T00:00:00.000Z',
  };
  const only = (item: Record<string, unknown>, fields: readonly string[]) => Object.fromEntries(fields.filter((f) => f in item).map((f) => [f, item[f]]));

  it.each<[string, StoredObservation]>([
    ['an instant', reading],
    ['a period, amended, with identifiers', { ...reading, status: 'amended', identifiers: [{ system: 'urn:x', value: '1' }, { value: '2' }], effective: { kind: 'period', start: 10, end: 20 } }],
    ['undated, its payload kept as text', { ...reading, effective: undefined, data: base64.replace(/=+$/, '') }],
  ])('give back the whole reading: %s', (_what, o) => {
    expect(fromItem(only(toItem(o), ROW_FIELDS))).toEqual(o);
  });

  it('leave the keys and index attributes behind', () => {
    const item = toItem(reading);
    const left = Object.keys(item).filter((k) => !ROW_FIELDS.includes(k));
    expect(left.sort()).toEqual(['codeEffSk', 'codeShard', 'effSk', 'pk']);
  });
});
