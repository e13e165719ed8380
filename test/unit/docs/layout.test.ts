/**
 * Test folders mirror the code's (docs/layout.md): each `test/unit/<path>.test.ts` tests the file or
 * folder at `<path>` under `shared/` (or, for the code outside it, under the repository or `test/`:
 * `test/unit/local/commands.test.ts` tests `local/commands.ts`, `test/unit/fixtures/` tests
 * `test/fixtures/`). A test that reads across several files says why below.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..', '..', '..');
const UNIT = join(REPO, 'test', 'unit');

/** Tests of more than one file, by the path they would mirror, with what they read across. */
const CROSS_CUTTING = new Map([
  ['docs/links', 'every relative link of README.md and docs/*.md'],
  ['fhir/namespace', 'the deployment namespace, in every place the service stamps or reads its own URIs'],
  ['fhir/r5-corpus', 'every R5 example of the standard through validation and search extraction'],
  ['fhir/validation-cost', 'the cost per kilobyte of the whole validator'],
  ['import-cycles', 'the imports of every TypeScript file tsconfig.json includes, types only included'],
  ['r4-import/hostile', "fuzzed input through the import's conversion, loss detection and entry preparation"],
  ['r4-import/r4-corpus', 'every R4 example of the standard through the compiled conversion'],
  ['r4-import/structure', 'the structural conversion facts, from the compiler to the converted resource'],
]);

function unitTests(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return unitTests(path);
    return name.endsWith('.test.ts') ? [relative(UNIT, path).slice(0, -'.test.ts'.length)] : [];
  });
}

/** A file (any extension) or folder at `path` under one of the code's roots. */
function mirrored(path: string): boolean {
  return ['shared', '.', 'test'].some((root) => {
    const at = join(REPO, root, path);
    if (existsSync(at) && statSync(at).isDirectory()) return true;
    const folder = dirname(at);
    return existsSync(folder) && readdirSync(folder).some((name) => name.replace(/\.[^.]+$/, '') === basename(at) && statSync(join(folder, name)).isFile());
  });
}

describe('unit tests mirror the code', () => {
  const tests = unitTests(UNIT);

  it('puts each unit test at the path of the file or folder it tests', () => {
    expect(tests.filter((path) => !CROSS_CUTTING.has(path) && !mirrored(path))).toEqual([]);
  });

  it('names only tests that exist, and that mirror nothing, as cross-cutting', () => {
    expect([...CROSS_CUTTING.keys()].filter((path) => !tests.includes(path) || mirrored(path))).toEqual([]);
  });
});
