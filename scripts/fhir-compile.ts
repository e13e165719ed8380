/**
 * `npm run fhir:compile [-- <outDir>]`: compiles the standard's R5 packages (devDependencies
 * `hl7.fhir.r5.core` and `hl7.fhir.r5.expansions`) into the compact definitions the service loads
 * at run time: `shared/fhir/definitions/generated/`. Deterministic (sorted, no timestamps), so a
 * test can compile into a temporary folder and compare. Never edit the output by hand.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ElementDef, Manifest, TypeDefinition } from '../shared/fhir/definitions/model';
import { packageDir, packageVersion, readResources, unversioned } from './fhir-compile/packages';
import { compileSearchParams } from './fhir-compile/search-params';
import { compileStructures } from './fhir-compile/structures';
import { valueSetCompiler } from './fhir-compile/value-sets';

export const GENERATED_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'shared', 'fhir', 'definitions', 'generated');

export interface CompiledDefinitions {
  /** Relative file path -> content, for every generated file. */
  files: Map<string, string>;
  /** What the published packages get wrong and the compiler therefore left out. */
  skipped: string[];
}

export function compileDefinitions(): CompiledDefinitions {
  const core = packageDir('hl7.fhir.r5.core');
  const expansions = packageDir('hl7.fhir.r5.expansions');
  const valueSets = valueSetCompiler(
    readResources(expansions, 'ValueSet'),
    readResources(core, 'ValueSet'),
    readResources(core, 'CodeSystem'),
  );
  const structures = compileStructures(readResources(core, 'StructureDefinition'), (url) => valueSets.bindingFor(url));
  // Invariants test membership with memberOf('<value set>'): compile those code sets too.
  for (const type of structures.types) {
    for (const expression of invariantExpressions(type)) {
      for (const m of expression.matchAll(/memberOf\('([^']+)'\)/g)) valueSets.bindingFor(unversioned(m[1]!));
    }
  }
  const ancestorsOf = (type: string): string[] => {
    const out: string[] = [];
    for (let t = structures.type2Parent[type]; t; t = structures.type2Parent[t]) out.push(t);
    return out;
  };
  const search = compileSearchParams(
    readResources(core, 'SearchParameter'),
    structures.resourceTypes,
    structures.abstractResourceTypes,
    ancestorsOf,
  );

  const files = new Map<string, string>();
  const manifest: Manifest = {
    fhirVersion: packageVersion(core),
    resourceTypes: structures.resourceTypes,
    abstractResourceTypes: structures.abstractResourceTypes,
    complexTypes: structures.complexTypes,
    primitives: sortKeys(structures.primitives),
    type2Parent: sortKeys(structures.type2Parent),
    pathsDefinedElsewhere: sortKeys(structures.pathsDefinedElsewhere),
    commonSearchParams: search.common,
    valueSetFiles: valueSets.index(),
  };
  files.set('manifest.json', json(manifest));
  for (const type of structures.types) {
    const params = search.byType.get(type.name);
    files.set(`types/${type.name}.json`, json(params && params.length > 0 ? { ...type, searchParams: params } : type));
  }
  for (const [key, codes] of valueSets.files()) files.set(`valuesets/${key}.json`, json(codes));
  return { files: new Map([...files.entries()].sort(([a], [b]) => a.localeCompare(b))), skipped: search.skipped };
}

function invariantExpressions(type: TypeDefinition): string[] {
  const out = (type.constraints ?? []).map((c) => c.expression);
  const walk = (elements: readonly ElementDef[]) => {
    for (const el of elements) {
      for (const c of el.constraints ?? []) out.push(c.expression);
      if (el.children) walk(el.children);
    }
  };
  walk(type.elements);
  return out;
}

function json(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.keys(record).sort().map((k) => [k, record[k]!]));
}

export function writeDefinitions(outDir: string, files: Map<string, string>): void {
  rmSync(outDir, { recursive: true, force: true });
  for (const [rel, content] of files) {
    const file = join(outDir, rel);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = resolve(process.argv[2] ?? GENERATED_DIR);
  const started = performance.now();
  const { files, skipped } = compileDefinitions();
  writeDefinitions(outDir, files);
  for (const note of skipped) console.log(`skipped ${note}`);
  const bytes = [...files.values()].reduce((n, c) => n + Buffer.byteLength(c), 0);
  console.log(
    `fhir:compile wrote ${files.size} files (${(bytes / 1024).toFixed(0)} KB) to ${outDir} in ${(performance.now() - started).toFixed(0)} ms`,
  );
}
