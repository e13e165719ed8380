import { describe, expect, it } from 'vitest';
import { chooseKey } from '../../../shared/oauth/client-keys';

describe('choosing the key of an assertion', () => {
  const ec = { kty: 'EC', kid: 'a', crv: 'P-384', x: 'x', y: 'y' };
  const rsa = { kty: 'RSA', kid: 'a', n: 'n', e: 'AQAB' };
  it('takes the one key with the kid whose type fits the algorithm', () => {
    expect(chooseKey([ec, rsa], { alg: 'ES384', kid: 'a' })).toBe(ec);
    expect(chooseKey([ec, rsa], { alg: 'RS384', kid: 'a' })).toBe(rsa);
    expect(chooseKey([ec], { alg: 'RS384', kid: 'a' })).toBeUndefined();
    expect(chooseKey([ec], { alg: 'ES384', kid: 'b' })).toBeUndefined();
    expect(chooseKey([ec, { ...ec, x: 'other' }], { alg: 'ES384', kid: 'a' })).toBeUndefined();
    expect(chooseKey([{ kty: 'oct', kid: 'a', k: 'x' }], { alg: 'ES384', kid: 'a' })).toBeUndefined();
  });
});
