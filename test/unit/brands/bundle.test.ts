/** Reading User-access Brands Bundles into directory entries, and the folding every search compares with. */
import { describe, expect, it } from 'vitest';
import { BrandsFileError, parseBrandsBundle } from '../../../shared/brands/bundle';
import { buildIndex, fold, searchIndex } from '../../../shared/brands/search';
import { brandsBundle } from '../../fixtures/brands-bundle';

const endpoint = (id: string, address: string, extra: Record<string, unknown> = {}) => ({
  fullUrl: `https://vendor.example/Endpoint/${id}`,
  resource: { resourceType: 'Endpoint', id, address, status: 'active', connectionType: { code: 'hl7-fhir-rest' }, ...extra },
});
const version = (code: string) => ({ extension: [{ url: 'http://fhir.org/argonaut/StructureDefinition/endpoint-fhir-version', valueCode: code }] });
const org = (id: string, fields: Record<string, unknown>) => ({ fullUrl: `https://vendor.example/Organization/${id}`, resource: { resourceType: 'Organization', id, ...fields } });
const bundleOf = (...entry: unknown[]) => ({ resourceType: 'Bundle', type: 'collection', timestamp: '2026-01-01T00:00:00Z', entry });

describe('parseBrandsBundle', () => {
  it('follows endpoints named only in the portal extension, absolute references and partOf two levels deep', () => {
    const parsed = parseBrandsBundle(
      bundleOf(
        endpoint('e1', 'https://fhir.example.org/r4/', version('4.0.1')),
        org('brand', {
          name: 'Example Health',
          extension: [{ url: 'http://hl7.org/fhir/StructureDefinition/organization-portal', extension: [{ url: 'portalEndpoint', valueReference: { reference: 'https://vendor.example/Endpoint/e1' } }] }],
        }),
        org('affiliate', { name: 'Example Physicians', partOf: { reference: 'Organization/brand' }, address: [{ line: ['1 Main St'], city: 'Madison', state: 'WI', postalCode: '53703' }] }),
        org('site', { name: 'Example Physicians East', partOf: { reference: 'Organization/affiliate' }, address: [{ text: 'East campus' }] }),
      ),
    );
    expect(parsed.timestamp).toBe('2026-01-01T00:00:00Z');
    expect(parsed.entries).toEqual([
      {
        fhirBaseUrl: 'https://fhir.example.org/r4',
        fhirVersion: '4.0.1',
        facilities: [
          { name: 'Example Health', brandName: 'Example Health', addresses: [] },
          { name: 'Example Physicians', brandName: 'Example Health', addresses: [{ text: '1 Main St, Madison, WI 53703', city: 'Madison', state: 'WI', postalCode: '53703' }] },
          { name: 'Example Physicians East', brandName: 'Example Health', addresses: [{ text: 'East campus' }] },
        ],
      },
    ]);
  });

  it('prefers an R4 endpoint, then R5; skips inactive, DSTU2-only and unnamed ones, counting why', () => {
    const parsed = parseBrandsBundle(
      bundleOf(
        endpoint('r5', 'https://both.example/r5', version('5.0.0')),
        endpoint('r4', 'https://both.example/r4', version('4.0.1')),
        endpoint('old', 'https://old.example/dstu2', version('1.0.2')),
        endpoint('off', 'https://off.example/r4', { status: 'off', ...version('4.0.1') }),
        org('both', { name: 'Both Versions', endpoint: [{ reference: 'Endpoint/r5' }, { reference: 'Endpoint/r4' }] }),
        org('old', { name: 'Old Only', endpoint: [{ reference: 'Endpoint/old' }] }),
        org('off', { name: 'Switched Off', endpoint: [{ reference: 'Endpoint/off' }] }),
        org('nameless', { endpoint: [{ reference: 'Endpoint/r4' }] }),
        org('lost', { name: 'Part of nothing here', partOf: { reference: 'Organization/elsewhere' } }),
      ),
    );
    expect(parsed.entries.map((e) => [e.fhirBaseUrl, e.fhirVersion])).toEqual([['https://both.example/r4', '4.0.1']]);
    expect([...parsed.skipped]).toEqual([
      ['an Organization reaching no active R4 or R5 FHIR endpoint', 3],
      ['an Organization without a name', 1],
    ]);
  });

  it('keeps two brands behind one endpoint together, each facility with its own brand', () => {
    const parsed = parseBrandsBundle(brandsBundle([
      { id: 'a', name: 'Brand A', fhirBaseUrl: 'https://shared.example/r4' },
      { id: 'b', name: 'Brand B', fhirBaseUrl: 'https://shared.example/r4', facilities: [{ id: 'b1', name: 'B Clinic' }] },
    ]));
    expect(parsed.entries).toHaveLength(1);
    expect(parsed.entries[0]!.facilities.map((f) => [f.name, f.brandName])).toEqual([['Brand A', 'Brand A'], ['Brand B', 'Brand B'], ['B Clinic', 'Brand B']]);
  });

  it('refuses what is not a Brands Bundle, naming the first problems', () => {
    expect(() => parseBrandsBundle('text')).toThrow(BrandsFileError);
    expect(() => parseBrandsBundle(bundleOf(org('x', { name: 'X', address: 'Main St' })))).toThrow(/entry\[0\]\.resource\.address/);
    const many = bundleOf(...Array.from({ length: 30 }, (_, i) => org(`x${i}`, { name: i })));
    try {
      parseBrandsBundle(many);
      expect.unreachable();
    } catch (e) {
      expect((e as BrandsFileError).problems).toHaveLength(10);
    }
  });
});

describe('fold and the index', () => {
  it('folds case, accents, ligatures and punctuation', () => {
    expect(fold('  Hôpital Saint-Étienne ')).toBe('hopital saint etienne');
    expect(fold('Straße Ærø Łódź')).toBe('strasse aero lodz');
    expect(fold('São Paulo/SP')).toBe('sao paulo sp');
  });

  it('lets the list loaded last win an endpoint two lists name', () => {
    const entry = (name: string) => ({ fhirBaseUrl: 'https://same.example/r4', facilities: [{ name, brandName: name, addresses: [] }] });
    const index = buildIndex({
      lists: [
        { name: 'a', importedAt: '2026-01-02T00:00:00Z', digest: 'a', entries: [entry('Newer Name')] },
        { name: 'b', importedAt: '2026-01-01T00:00:00Z', digest: 'b', entries: [entry('Older Name')] },
      ],
    });
    expect(searchIndex(index, { limit: 10 }).map((r) => r.facility_name)).toEqual(['Newer Name']);
  });
});
