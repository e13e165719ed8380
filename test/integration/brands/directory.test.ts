/**
 * The brands directory as the operator loads it and the picker searches it: a file loaded, the
 * same file again (no change), a newer file retiring a brand, an older or a malformed file refused
 * with nothing changed, and `GET /api/v1/portal/brands` with its filters, ranking, limit and who may
 * call it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { BrandsFileError, importBrands, removeBrandList, brandLists } from '../../../shared/brands/import';
import { brandStore } from '../../../shared/brands/store/current';
import { runBrandsCommand } from '../../../scripts/brands';
import { brandsBundle, generatedBrands, type SampleBrand } from '../../fixtures/brands-bundle';
import { send } from '../../support/api';
import { call } from '../../support/invoke';
import { makePatient, makePractitioner } from '../../support/directory';
import { twinsInUse } from '../../support/store';

const SPRINGFIELD = { city: 'Springfield', state: 'IL', postalCode: '62701' };

const BRANDS: SampleBrand[] = [
  {
    id: 'mercy',
    name: 'Mercy Health',
    fhirBaseUrl: 'https://fhir.mercy.example/api/FHIR/R4',
    addresses: [{ line: '1 Mercy Way', ...SPRINGFIELD }],
    facilities: [
      { id: 'mercy-north', name: 'Mercy North Clinic', addresses: [{ line: '9 North Rd', city: 'Madison', state: 'WI', postalCode: '53703' }] },
      { id: 'mercy-sp', name: 'Clínica Mercy São Paulo', addresses: [{ city: 'São Paulo', state: 'SP', postalCode: '01310-100' }] },
    ],
  },
  {
    id: 'lakeside',
    name: 'Lakeside Medical',
    fhirBaseUrl: 'https://fhir.lakeside.example/r5',
    fhirVersion: '5.0.0',
    aliases: ['Old Lake Hospital'],
    addresses: [{ ...SPRINGFIELD, postalCode: '62704' }],
  },
  { id: 'etienne', name: 'Hôpital Saint-Étienne', fhirBaseUrl: 'https://fhir.chu-etienne.example/R4', addresses: [{ city: 'Saint-Étienne', state: 'ARA', postalCode: '42000' }] },
];

let patient: Awaited<ReturnType<typeof makePatient>>;
beforeAll(async () => {
  patient = await makePatient({ login: true });
});

const held = () => twinsInUse()!.snapshot().brands;
const search = async (query: string, token = patient.token) => {
  const res = await send('GET', `/api/v1/portal/brands${query}`, token);
  expect(res.status, res.text).toBe(200);
  return res.json.results as Array<Record<string, string>>;
};

describe('loading a brands file', () => {
  it('loads brands and facilities, then loads the same file again without writing anything', async () => {
    const first = await importBrands('vendor', brandsBundle(BRANDS, '2026-01-01T00:00:00Z'));
    expect(first).toMatchObject({ list: 'vendor', outcome: 'published', brands: 3, facilities: 5, updated: [], retired: [] });
    expect(first.added.sort()).toEqual(BRANDS.map((b) => b.fhirBaseUrl).sort());
    expect(await brandLists()).toEqual([expect.objectContaining({ name: 'vendor', brands: 3, facilities: 5, timestamp: '2026-01-01T00:00:00Z' })]);

    const before = held();
    const again = await importBrands('vendor', brandsBundle(BRANDS, '2026-01-01T00:00:00Z'));
    expect(again).toMatchObject({ outcome: 'unchanged', brands: 3, added: [], updated: [], retired: [] });
    expect(held()).toEqual(before);
  });

  it('retires a brand a newer file no longer has, and updates one that changed, in one publication', async () => {
    const head = await brandStore().head();
    const newer = [{ ...BRANDS[0]!, facilities: [BRANDS[0]!.facilities![0]!] }, BRANDS[2]!];
    const report = await importBrands('vendor', brandsBundle(newer, '2026-02-01T00:00:00Z'));
    expect(report).toMatchObject({ outcome: 'published', added: [], updated: [BRANDS[0]!.fhirBaseUrl], retired: [BRANDS[1]!.fhirBaseUrl], facilities: 3 });
    expect((await brandStore().head())!.version).not.toBe(head!.version);
    expect(await search('?q=lakeside')).toEqual([]);
    expect(await search('?q=sao paulo')).toEqual([]);
    // Back to the full file for the searches below (a newer timestamp again).
    await importBrands('vendor', brandsBundle(BRANDS, '2026-03-01T00:00:00Z'));
  });

  it('refuses an older file, and malformed ones, with a message naming the place, changing nothing', async () => {
    const before = held();
    const refusals: Array<[unknown, RegExp]> = [
      [brandsBundle(BRANDS, '2025-12-01T00:00:00Z'), /older than that of the list "vendor"/],
      [{ resourceType: 'Patient' }, /resourceType/],
      [{ resourceType: 'Bundle', type: 'searchset', entry: [] }, /type/],
      [{ ...brandsBundle(BRANDS), entry: [{ resource: { resourceType: 'Organization', id: 'x', name: 7 } }] }, /entry\[0\]\.resource\.name/],
      [{ ...brandsBundle(BRANDS), entry: ['not an entry'] }, /entry\[0\]/],
      [brandsBundle([{ ...BRANDS[0]!, fhirVersion: '1.0.2' }]), /no Organization reaching an active R4 or R5 FHIR endpoint/],
    ];
    for (const [file, message] of refusals) {
      const refusal = await importBrands('vendor', file).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(refusal).toBeInstanceOf(BrandsFileError);
      expect((refusal as Error).message).toMatch(message);
      expect(held()).toEqual(before);
    }
    await expect(importBrands('no spaces allowed', brandsBundle(BRANDS))).rejects.toThrow(/list name/);
  });

  it('runs as the operator command: import, lists, search, remove', async () => {
    expect(await runBrandsCommand(['lists'])).toEqual([expect.stringMatching(/^vendor: 3 FHIR endpoints, 5 facilities; file of 2026-03-01T00:00:00Z/)]);
    expect(await runBrandsCommand(['search', 'mercy', '--state', 'wi'])).toEqual(['Mercy North Clinic (Mercy Health) - 9 North Rd, Madison, WI 53703 -> https://fhir.mercy.example/api/FHIR/R4']);
    await importBrands('second', brandsBundle([{ id: 'x', name: 'Second Vendor Hospital', fhirBaseUrl: 'https://fhir.second.example/r4' }]));
    expect(await runBrandsCommand(['remove', 'second'])).toEqual(['list "second" removed']);
    expect(await runBrandsCommand(['remove', 'second'])).toEqual(['no list "second"']);
    expect(await removeBrandList('vendor')).toBe(true);
    expect(await search('?q=mercy')).toEqual([]);
    await importBrands('vendor', brandsBundle(BRANDS, '2026-03-01T00:00:00Z'));
  });
});

describe('GET /api/v1/portal/brands', () => {
  it('answers rows in the picker shape, matching names and cities without case or accents', async () => {
    const [row] = await search('?q=SAINT etienne');
    expect(row).toEqual({
      facility_name: 'Hôpital Saint-Étienne',
      address_text: 'Saint-Étienne, ARA 42000',
      city: 'Saint-Étienne',
      state: 'ARA',
      postal_code: '42000',
      brand_name: 'Hôpital Saint-Étienne',
      fhir_base_url: 'https://fhir.chu-etienne.example/R4',
    });
    expect((await search('?q=clinica sao')).map((r) => r.facility_name)).toEqual(['Clínica Mercy São Paulo']);
    // A city finds its facilities; a former name finds its brand; a word inside a word is found last.
    expect((await search('?q=madison')).map((r) => r.facility_name)).toEqual(['Mercy North Clinic']);
    expect((await search('?q=old lake')).map((r) => r.facility_name)).toEqual(['Lakeside Medical']);
    expect((await search('?q=side')).map((r) => r.facility_name)).toEqual(['Lakeside Medical']);
  });

  it('ranks the best matches first: the name itself, then its start, then the brand', async () => {
    // Both names start with the word (the shorter first), then the one that has it later.
    expect((await search('?q=mercy')).map((r) => r.facility_name)).toEqual(['Mercy Health', 'Mercy North Clinic', 'Clínica Mercy São Paulo']);
    expect((await search('?q=mercy health'))[0]!.facility_name).toBe('Mercy Health');
  });

  it('filters by state and postal code on the address it shows', async () => {
    expect((await search('?state=il')).map((r) => r.facility_name)).toEqual(['Lakeside Medical', 'Mercy Health']);
    expect((await search('?state=IL&postal=62704')).map((r) => r.facility_name)).toEqual(['Lakeside Medical']);
    expect((await search('?postal=013')).map((r) => [r.facility_name, r.postal_code])).toEqual([['Clínica Mercy São Paulo', '01310-100']]);
    expect(await search('?q=mercy&state=TX')).toEqual([]);
  });

  it('defaults the limit to 25 and clamps it to 1-100; refuses what is not a number', async () => {
    await importBrands('generated', brandsBundle(generatedBrands(300)));
    expect(await search('')).toHaveLength(25);
    expect(await search('?limit=1000')).toHaveLength(100);
    expect(await search('?limit=0')).toHaveLength(1);
    expect(await search('?limit=-5')).toHaveLength(1);
    const bad = await send('GET', '/api/v1/portal/brands?limit=ten', patient.token);
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ limit: ['A whole number is required.'] });
    const long = await send('GET', `/api/v1/portal/brands?q=${'a'.repeat(201)}`, patient.token);
    expect(long.status).toBe(400);
    const twice = await send('GET', '/api/v1/portal/brands?q=a&q=b', patient.token);
    expect(twice.status).toBe(400);
    await removeBrandList('generated');
  });

  it('takes hostile words as words: prototype names, markup, control characters, no Host of its own', async () => {
    for (const q of ['__proto__', 'constructor', 'toString', '<script>', `${'ab '.repeat(60)}`]) expect(await search(`?q=${q}`)).toEqual([]);
    // Nothing but punctuation, a control character or an emoji has no words: the list by name, as without `q`.
    const byName = await search('');
    for (const q of ['%00', '%F0%9F%8F%A5', '..%2F..%2F']) expect(await search(`?q=${q}`)).toEqual(byName);
    expect(await search('?state=__proto__&postal=constructor')).toEqual([]);
    const res = await call('GET', '/api/v1/portal/brands?q=mercy%20health', { token: patient.token, headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example' } });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('evil.example');
  });

  it('answers any signed-in caller, and 401 without a token', async () => {
    const practitioner = await makePractitioner();
    expect(await search('?q=mercy%20health', practitioner.token)).not.toEqual([]);
    const anonymous = await send('GET', '/api/v1/portal/brands?q=mercy', undefined);
    expect(anonymous.status).toBe(401);
    expect(JSON.stringify(anonymous.json)).not.toContain('Mercy');
  });
});
