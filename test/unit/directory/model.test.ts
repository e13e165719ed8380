import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { DEMO_CODES, SEEDED_CODES } from '../../../shared/directory/codes';
import { parseId } from '../../../shared/directory/ids';
import { idFromSortKey, keys, pad } from '../../../shared/store/directory-keys';
import { ORGANIZATION_TYPES, roleAtLeast } from '../../../shared/directory/model';
import { pageOf } from '../../../shared/directory/paging';
import { OMH_SYSTEM } from '../../../shared/fhir/constants';

describe('directory keys', () => {
  it('pads ids so sort keys order numerically', () => {
    const ids = [1, 2, 9, 10, 11, 100, 99, 123456789];
    const bySortKey = [...ids].sort((a, b) => (pad(a) < pad(b) ? -1 : 1));
    expect(bySortKey).toEqual([...ids].sort((a, b) => a - b));
    expect(idFromSortKey(keys.organizationPatient(3, 42).sk)).toBe(42);
    expect(idFromSortKey(keys.consent(1, 2, 3).sk)).toBe(3);
  });

  it('never lets free text forge another key', () => {
    expect(keys.patientIdentifier('a|b', 'c').pk).not.toBe(keys.patientIdentifier('a', 'b|c').pk);
    expect(keys.patientIdentifier('a#b', 'c').pk).not.toBe(keys.patientIdentifier('a', 'b#c').pk);
    expect(keys.codeCoding('s#x', 'c').pk).not.toBe(keys.codeCoding('s', 'x#c').pk);
    expect(keys.oauthClient('x#OAUTHCLIENT').pk).toBe('OAUTHCLIENT#x%23OAUTHCLIENT');
  });

  it('compares emails without case or surrounding spaces', () => {
    expect(keys.email(' Ann@Example.ORG ')).toEqual(keys.email('ann@example.org'));
  });

  it('keeps every entity kind in its own partition space', () => {
    const pks = [keys.organization(1), keys.user(1), keys.patient(1), keys.study(1), keys.dataSource(1), keys.code(1), keys.fhirSource(1)].map((k) => k.pk);
    expect(new Set(pks).size).toBe(pks.length);
  });
});

describe('ids', () => {
  it('accepts positive integers only', () => {
    expect(parseId('12')).toBe(12);
    expect(parseId(7)).toBe(7);
    for (const bad of ['0', '-1', '1.5', '01', 'abc', '', ' 1', '1e3', '9999999999999999', 0, -3, 1.5, NaN, null, undefined, {}]) {
      expect(parseId(bad), String(bad)).toBeUndefined();
    }
  });
});

describe('paging', () => {
  const all = Array.from({ length: 45 }, (_, i) => i + 1);

  it('pages from 1 and counts everything', () => {
    expect(pageOf(all, { page: 1, pageSize: 20 })).toEqual({ count: 45, items: all.slice(0, 20) });
    expect(pageOf(all, { page: 3, pageSize: 20 }).items).toEqual([41, 42, 43, 44, 45]);
    expect(pageOf([], { page: 1, pageSize: 20 })).toEqual({ count: 0, items: [] });
  });

  it('answers 404 past the end or before the start', () => {
    expect(() => pageOf(all, { page: 4, pageSize: 20 })).toThrow(expect.objectContaining({ status: 404 }));
    expect(() => pageOf(all, { page: 0, pageSize: 20 })).toThrow(expect.objectContaining({ status: 404 }));
  });

  it('caps the page size at 1000', () => {
    const many = Array.from({ length: 1500 }, (_, i) => i);
    expect(pageOf(many, { page: 1, pageSize: 5000 }).items).toHaveLength(1000);
  });
});

describe('model', () => {
  it('has the organization types of the FHIR organization-type value set', () => {
    const require = createRequire(import.meta.url);
    const path = require.resolve('hl7.fhir.r5.expansions/ValueSet-organization-type.json');
    const expansion = JSON.parse(readFileSync(path, 'utf8')) as { expansion: { contains: { code: string; display: string }[] } };
    expect(ORGANIZATION_TYPES).toEqual(Object.fromEntries(expansion.expansion.contains.map((c) => [c.code, c.display])));
  });

  it('orders roles viewer < member < manager', () => {
    expect(roleAtLeast('manager', 'member')).toBe(true);
    expect(roleAtLeast('member', 'member')).toBe(true);
    expect(roleAtLeast('viewer', 'member')).toBe(false);
    expect(roleAtLeast(undefined, 'viewer')).toBe(false);
  });

  it('seeds the sixteen rows of the code table and the four demo codes', () => {
    expect(SEEDED_CODES).toHaveLength(16);
    expect(DEMO_CODES).toHaveLength(4);
    const all = [...SEEDED_CODES, ...DEMO_CODES];
    expect(new Set(all.map((c) => `${c.system}|${c.code}`)).size).toBe(20);
    expect(SEEDED_CODES[3]).toEqual({ system: OMH_SYSTEM, code: 'omh:heart-rate:2.0', display: 'Heart Rate' });
    expect(SEEDED_CODES[6]!.display).toBe('RR Interval');
    for (const c of all.filter((c) => c.system === OMH_SYSTEM)) expect(c.code).toMatch(/^omh:[a-z0-9-]+:\d+\.\d+$/);
  });
});
