import { describe, expect, it } from 'vitest';
import { hashSecret, randomAlphanumeric, secretMatches } from '../../shared/secrets';

describe('secrets', () => {
  it('makes alphanumeric secrets of the asked length, all different', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i += 1) {
      const s = randomAlphanumeric(32);
      expect(s).toMatch(/^[A-Za-z0-9]{32}$/);
      seen.add(s);
    }
    expect(seen.size).toBe(200);
  });

  it('uses every character about evenly', () => {
    const counts = new Map<string, number>();
    for (const ch of randomAlphanumeric(62_000)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const n of counts.values()) expect(n).toBeGreaterThan(700);
  });

  it('stores secrets as SHA-256 and compares them', () => {
    expect(hashSecret('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(secretMatches('abc', hashSecret('abc'))).toBe(true);
    expect(secretMatches('abd', hashSecret('abc'))).toBe(false);
    expect(secretMatches('abc', undefined)).toBe(false);
    expect(secretMatches('abc', 'short')).toBe(false);
  });
});
