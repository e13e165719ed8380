/**
 * No import cycles among the repository's TypeScript files (those tsconfig.json includes), imports of
 * types only included. The linter's `import-x/no-cycle` finds the others, but it skips an import of
 * types only by design, so a cycle made through one would go unseen (docs/layout.md, rule 6). Each
 * file's imports are read by TypeScript's own pre-processor (`ts.preProcessFile`, which scans without
 * building a tree and skips comments and strings): every `import`, `export ... from` and `import()` of
 * a relative path is an edge; packages cannot import the repository back.
 */
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..', '..');

/** The TypeScript files tsconfig.json includes in `dir`. */
function projectFiles(dir: string): string[] {
  const { config } = ts.readConfigFile(join(dir, 'tsconfig.json'), ts.sys.readFile);
  return ts.parseJsonConfigFileContent(config, ts.sys, dir).fileNames.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
}

/** The file a relative specifier names (`./a`, `./a.js`, `./dir`), or undefined for a package or a non-TypeScript file. */
function resolved(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  return [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')].find((f) => f.endsWith('.ts') && existsSync(f) && statSync(f).isFile());
}

/** Each file's imports within the files given (type-only ones too). */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(ts.sys.readFile(file) ?? '', true, true);
    const targets = importedFiles.map(({ fileName }) => resolved(file, fileName)).filter((f): f is string => f !== undefined && known.has(f));
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The groups of files that import each other, however indirectly (the graph's strongly connected components of more than one file, or a file importing itself). */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    order.set(file, order.size);
    low.set(file, order.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!order.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, order.get(next)!));
    }
    if (low.get(file) !== order.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || graph.get(file)?.includes(file)) found.push(group.sort());
  };
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return found;
}

describe('import cycles, imports of types only included', () => {
  it('finds none among the repository\'s TypeScript files', () => {
    const files = projectFiles(REPO);
    expect(files.length).toBeGreaterThan(500);
    expect(cycles(importGraph(files)).map((group) => group.map((f) => relative(REPO, f)))).toEqual([]);
  });

  describe('finds a planted one (the check can fail)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-cycles-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const planted = (files: Record<string, string>) => {
      for (const [name, source] of Object.entries(files)) writeFileSync(join(dir, name), source);
      return cycles(importGraph(Object.keys(files).map((name) => join(dir, name)))).map((group) => group.map((f) => relative(dir, f)));
    };

    it('through imports of types only, as the linter would not', () => {
      expect(
        planted({
          'paths.ts': "import type { Dialect } from './request';\nexport const dialectOf = (): Dialect => 'fhir';\n",
          'request.ts': "import type { AuditTrail } from './audit';\nexport type Dialect = 'fhir';\nexport type Request = { audit: AuditTrail };\n",
          'audit.ts': "import { dialectOf } from './paths';\nexport type AuditTrail = ReturnType<typeof dialectOf>;\n",
          'leaf.ts': "import type { Request } from './request';\nexport type R = Request;\n",
        }),
      ).toEqual([['audit.ts', 'paths.ts', 'request.ts']]);
    });

    it('through export-from, a dynamic import() and a .js specifier; a file importing itself', () => {
      expect(
        planted({
          'a.ts': "export { b } from './b.js';\nexport const a = 1;\n",
          'b.ts': "export const b = async () => (await import('./a')).a;\n",
          'self.ts': "import { s } from './self';\nexport const s = 1;\nexport const t = s;\n",
        }),
      ).toEqual([['a.ts', 'b.ts'], ['self.ts']]);
    });
  });
});
