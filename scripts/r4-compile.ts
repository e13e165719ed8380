/**
 * `npm run fhir:compile-r4 [-- <outDir>]`: compiles what the R4 import knows about R4 into
 * `shared/r4-import/generated/`: the R4 base definitions (they ship inside the devDependency
 * `hl7.fhir.r4.examples`), matched path by path and type by type against the compiled R5
 * definitions, with the team's conversion facts (`scripts/r4-compile/facts.ts`) on top. One table
 * per R4 type, read by the converter on first use; and the facts' table in docs/r4-import.md.
 * Deterministic, so a test can compile into a temporary folder and compare. Never edit the output
 * by hand.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isAuxiliaryType } from '../shared/auxiliary/accepted-types';
import { isComplexType, isKnownResourceType, primitiveType, typeDefinition } from '../shared/fhir/definitions';
import type { TypeKinds } from '../shared/r4-import/conversions';
import type { R4Manifest } from '../shared/r4-import/model';
import { writeDefinitions } from './fhir-compile';
import { packageDir, packageVersion, readResources } from './fhir-compile/packages';
import { compileStructures } from './fhir-compile/structures';
import { correspondence } from './r4-compile/correspondence';
import { withFactsSection } from './r4-compile/docs';
import { CONVERSION_FACTS, type ConversionFact } from './r4-compile/facts';

export const R4_GENERATED_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'shared', 'r4-import', 'generated');
/** The design page whose table of conversion facts the compiler writes (between its markers). */
export const R4_DOCS = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'r4-import.md');

export interface CompiledConversion {
  files: Map<string, string>;
  /** Facts the compiler refused (richer conditions), said when it runs. */
  notes: string[];
}

let r4Compiled: { dir: string; r4: ReturnType<typeof compileStructures> } | undefined;

/** The R4 base definitions, compiled once per process. Bindings are R5's business: the R4 side needs only structure and types. */
function r4Definitions(): NonNullable<typeof r4Compiled> {
  if (!r4Compiled) {
    const dir = packageDir('hl7.fhir.r4.examples');
    r4Compiled = { dir, r4: compileStructures(readResources(dir, 'StructureDefinition'), (valueSet) => ({ valueSet, grammar: 'any' })) };
  }
  return r4Compiled;
}

/** The tables of every R4 type and the manifest; throws on a fact that names no element, does not convert or can never apply. */
export function compileConversion(conversionFacts: readonly ConversionFact[] = CONVERSION_FACTS): CompiledConversion {
  const { dir, r4 } = r4Definitions();
  const r4Primitives = Object.fromEntries(Object.entries(r4.primitives).map(([name, def]) => [name, def.json])) as R4Manifest['primitives'];
  const kinds: TypeKinds = {
    r4Primitive: (type) => (Object.hasOwn(r4Primitives, type) ? r4Primitives[type] : undefined),
    r5Primitive: (type) => primitiveType(type)?.json,
  };
  const facts = new Map<string, ConversionFact[]>();
  for (const fact of conversionFacts) facts.set(fact.from, [...(facts.get(fact.from) ?? []), fact]);

  const notes: string[] = [];
  const seenPaths = new Set<string>();
  const files = new Map<string, string>();
  const r4Datatypes = new Map(r4.types.filter((t) => t.kind === 'complex-type').map((t) => [t.name, t]));
  for (const type of r4.types) {
    if (type.abstract) continue;
    const r5Name = isKnownResourceType(type.name) || isComplexType(type.name) ? type.name : undefined;
    const r5 = r5Name ? typeDefinition(r5Name) : undefined;
    const requireReasons = type.kind === 'resource' && isAuxiliaryType(type.name);
    const table = correspondence({ r4: type, r5, r4Datatypes, facts, kinds, requireReasons, notes, seenPaths });
    files.set(`types/${type.name}.json`, `${JSON.stringify(table)}\n`);
  }
  const unknown = conversionFacts.filter((f) => !seenPaths.has(f.from));
  if (unknown.length > 0) throw new Error(`conversion facts name no R4 element: ${unknown.map((f) => f.from).join(', ')}`);

  const concrete = r4.types.filter((t) => !t.abstract);
  const manifest: R4Manifest = {
    fhirVersion: packageVersion(dir),
    resourceTypes: concrete.filter((t) => t.kind === 'resource').map((t) => t.name),
    complexTypes: concrete.filter((t) => t.kind === 'complex-type').map((t) => t.name),
    primitives: r4Primitives,
  };
  files.set('manifest.json', `${JSON.stringify(manifest)}\n`);
  return { files: new Map([...files.entries()].sort(([a], [b]) => a.localeCompare(b))), notes };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = resolve(process.argv[2] ?? R4_GENERATED_DIR);
  const started = performance.now();
  const { files, notes } = compileConversion();
  writeDefinitions(outDir, files);
  if (process.argv[2] === undefined) writeFileSync(R4_DOCS, withFactsSection(readFileSync(R4_DOCS, 'utf8')));
  for (const note of notes) console.log(`skipped ${note}`);
  const bytes = [...files.values()].reduce((n, c) => n + Buffer.byteLength(c), 0);
  console.log(`fhir:compile-r4 wrote ${files.size} files (${(bytes / 1024).toFixed(0)} KB) to ${outDir} in ${(performance.now() - started).toFixed(0)} ms`);
}
