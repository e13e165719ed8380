/**
 * The standard's own R4 examples (`hl7.fhir.r4.examples`, conformance resources aside) through the
 * import's pipeline without a store: convert, find the losses, validate as R5. Shared by the corpus
 * test (which prints the table) and the import benchmark (which times it).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { isAuxiliaryType } from '../../shared/auxiliary/accepted-types';
import { hasErrors, validateResource } from '../../shared/fhir/validation';
import type { OutcomeIssue } from '../../shared/fhir/outcome';
import { convertR4 } from '../../shared/r4-import/convert';
import { lossReport } from '../../shared/r4-import/loss';
import type { Drop } from '../../shared/r4-import/why';

type Json = Record<string, any>;

/** Conformance and knowledge resources: definitions, not data a hospital sends. */
const CONFORMANCE = new Set([
  'StructureDefinition', 'SearchParameter', 'ValueSet', 'CodeSystem', 'ConceptMap', 'StructureMap', 'CapabilityStatement',
  'OperationDefinition', 'CompartmentDefinition', 'ImplementationGuide', 'NamingSystem', 'GraphDefinition', 'MessageDefinition',
  'TerminologyCapabilities', 'ExampleScenario', 'TestScript',
]);

export interface CorpusExample {
  file: string;
  resource: Json;
}

const corpusDir = () => dirname(createRequire(import.meta.url).resolve('hl7.fhir.r4.examples/package.json'));

export function r4Corpus(): CorpusExample[] {
  const dir = corpusDir();
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json') && f !== 'package.json')
    .sort()
    .map((file) => ({ file, resource: JSON.parse(readFileSync(join(dir, file), 'utf8')) as Json }))
    .filter(({ resource }) => typeof resource.resourceType === 'string' && !CONFORMANCE.has(resource.resourceType) && !isDefinitionBundle(resource));
}

/** The first `perType` examples of each type (by file name), read without the rest of the corpus. */
export function r4ExamplesOf(types: readonly string[], perType: number): CorpusExample[] {
  const dir = corpusDir();
  const files = readdirSync(dir).sort();
  return types.flatMap((type) =>
    files
      .filter((f) => f.startsWith(`${type}-`) && f.endsWith('.json'))
      .slice(0, perType)
      .map((file) => ({ file, resource: JSON.parse(readFileSync(join(dir, file), 'utf8')) as Json })),
  );
}

/** The specification's own Bundles of definitions (all StructureDefinitions, all ValueSets, ...). */
function isDefinitionBundle(resource: Json): boolean {
  return resource.resourceType === 'Bundle' && (resource.entry ?? []).some((e: Json) => CONFORMANCE.has(e?.resource?.resourceType));
}

export interface CorpusResult {
  file: string;
  type: string;
  accepted: boolean;
  outcome: 'no-loss' | 'loss' | 'failed';
  /** What the conversion lost, each path with why. */
  dropped: Drop[];
  /** The first R5 validation error (or why there is no R5 resource). */
  failure?: string;
}

export async function importExample({ file, resource }: CorpusExample): Promise<CorpusResult> {
  const type = resource.resourceType as string;
  const base = { file, type, accepted: isAuxiliaryType(type) };
  const conversion = convertR4(resource);
  if (!conversion) return { ...base, outcome: 'failed', dropped: [], failure: 'no R5 counterpart' };
  const dropped = lossReport(resource, conversion);
  const issues = await validateResource(conversion.resource, { expectedType: type });
  if (hasErrors(issues)) return { ...base, outcome: 'failed', dropped, failure: describe(issues.find((i) => i.severity === 'error' || i.severity === 'fatal')!) };
  return { ...base, outcome: dropped.length > 0 ? 'loss' : 'no-loss', dropped };
}

/** A failure as a reason that groups: the element and the kind of problem, without instance indexes. */
function describe(i: OutcomeIssue): string {
  return i.diagnostics.replace(/\[\d+\]/g, '').replace(/'[^']*'/g, "'…'").slice(0, 140);
}
