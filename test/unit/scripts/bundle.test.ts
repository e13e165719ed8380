import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleEntry, FAMILY_ASSETS, REPO_ROOT } from '../../../scripts/bundle';
import { BUNDLED_DEFINITIONS_DIR } from '../../../shared/fhir/definitions/location';

const PROBE = `
const m = await import('./index.mjs');
const issues = await m.validateResource({ resourceType: 'Observation', status: 'bogus', code: { text: 'x' } });
const index = await m.extractSearchIndex({ resourceType: 'Patient', id: 'p1', gender: 'female', birthDate: '1980' });
const search = m.parseSearch('Patient', new URLSearchParams('gender=female&birthdate=1980'));
process.stdout.write(JSON.stringify({
  errors: issues.filter((i) => i.severity === 'error').map((i) => i.expression[0]),
  gender: index.gender,
  matches: m.matchesAll(index, search.criteria),
}));
`;

describe('the FHIR knowledge inside a Lambda bundle', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fhir-bundle-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads definitions from beside the bundle and keeps the FHIRPath engine out of the cold start', () => {
    const built = bundleEntry(join(REPO_ROOT, 'test/fixtures/fhir-knowledge-entry.ts'), dir, FAMILY_ASSETS.fhir);
    expect(existsSync(join(dir, BUNDLED_DEFINITIONS_DIR, 'manifest.json'))).toBe(true);
    // The engine (~630 KB) is a chunk loaded on the first validation or extraction. The handler's
    // own cold start (AWS SDK, token verification, directory, projections, Powertools with the
    // X-Ray SDK) is about 560 KB: an engine loaded eagerly would put it past 1 MB.
    expect(built.lazyBytes).toBeGreaterThan(500 * 1024);
    expect(built.bytes).toBeLessThan(700 * 1024);
    writeFileSync(join(dir, 'probe.mjs'), PROBE);
    const out = JSON.parse(execFileSync(process.execPath, ['probe.mjs'], { cwd: dir, encoding: 'utf8' }));
    expect(out).toEqual({ errors: ['Observation.status'], gender: [{ c: 'female' }], matches: true });
  });
});
