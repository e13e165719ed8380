import fc from 'fast-check';
import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { derToJose } from '../../../shared/auth/der';

const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });

describe('derToJose', () => {
  it('turns every DER signature into the r||s form the same key verifies', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 200 }), (message) => {
        const der = sign('sha256', message, { key: privateKey, dsaEncoding: 'der' });
        const jose = derToJose(der);
        expect(jose).toHaveLength(64);
        expect(verify('sha256', message, { key: publicKey, dsaEncoding: 'ieee-p1363' }, jose)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('pads short integers and drops the sign byte of long ones', () => {
    const r = [0x01];
    const s = [0x00, 0x80, ...new Array(31).fill(0x11)];
    const der = Uint8Array.from([0x30, 2 + r.length + 2 + s.length, 0x02, r.length, ...r, 0x02, s.length, ...s]);
    const jose = derToJose(der);
    expect(jose[31]).toBe(0x01);
    expect(jose.subarray(0, 31).every((b) => b === 0)).toBe(true);
    expect(jose[32]).toBe(0x80);
  });

  it('refuses malformed input', () => {
    expect(() => derToJose(Uint8Array.from([0x31, 0x00]))).toThrow();
    expect(() => derToJose(Uint8Array.from([0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x02, 0x01]))).toThrow();
    expect(() => derToJose(Uint8Array.from([0x30, 0x06, 0x02, 0x01, 0x01, 0x03, 0x01, 0x01]))).toThrow();
    const tooLong = Uint8Array.from([0x30, 38, 0x02, 33, 0x01, ...new Array(32).fill(1), 0x02, 0x01, 0x01]);
    expect(() => derToJose(tooLong)).toThrow(/longer/);
  });
});
