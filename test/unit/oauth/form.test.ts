import { describe, expect, it } from 'vitest';
import { parseParams } from '../../../shared/oauth/form';

describe('OAuth parameters', () => {
  it('reads form text strictly', () => {
    expect(parseParams('a=1&b=&c=x%20y')).toEqual({ a: '1', c: 'x y' });
    expect(() => parseParams('a=1&a=2')).toThrow(/more than once/);
    expect(() => parseParams(`a=${'x'.repeat(2049)}`)).toThrow(/longer/);
    expect(() => parseParams('a=%00')).toThrow(/control/);
    expect(() => parseParams(Array.from({ length: 31 }, (_, i) => `p${i}=1`).join('&'))).toThrow(/too many/);
  });
});
