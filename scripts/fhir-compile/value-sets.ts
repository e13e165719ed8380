/**
 * Required bindings -> code sets. The expansions package supplies most; a value set it does not
 * expand is expanded here from the core package when its compose is simple (whole complete code
 * systems, listed concepts), and a code system defined by a grammar (BCP 47 languages, MIME types,
 * UCUM, RGB colours) is checked by that grammar. A value set neither way (a LOINC answer list not
 * in the packages) is marked `any`: the code's own format is all that is checked.
 */
import type { Binding, CodeGrammar, ValueSetCodes } from '../../shared/fhir/definitions/model';
import { unversioned, type Json } from './packages';

const GRAMMAR_SYSTEMS: Record<string, CodeGrammar> = {
  'urn:ietf:bcp:47': 'bcp47',
  'urn:ietf:bcp:13': 'mime-type',
  'http://unitsofmeasure.org': 'ucum',
  'http://hl7.org/fhir/color-rgb': 'color',
};

const FHIR_VALUESET_PREFIX = 'http://hl7.org/fhir/ValueSet/';

export interface ValueSetCompiler {
  bindingFor(valueSetUrl: string): Binding;
  /** The code-set files of every value set a binding asked for, by file key. */
  files(): Map<string, ValueSetCodes>;
  /** Value set URL -> file key, for FHIRPath's memberOf(). */
  index(): Record<string, string>;
}

export function valueSetCompiler(expansions: Json[], coreValueSets: Json[], codeSystems: Json[]): ValueSetCompiler {
  const expanded = new Map(expansions.filter((v) => v.expansion?.contains).map((v) => [v.url as string, v]));
  const composed = new Map(coreValueSets.map((v) => [v.url as string, v]));
  const systems = new Map(codeSystems.map((c) => [c.url as string, c]));
  const files = new Map<string, ValueSetCodes>();
  const bindings = new Map<string, Binding>();

  function bindingFor(url: string): Binding {
    const known = bindings.get(url);
    if (known) return known;
    const binding: Binding = { valueSet: url };
    const published = expanded.get(url);
    let codes: Record<string, Set<string>> = {};
    if (published) {
      collectContains(published.expansion.contains, codes);
    } else {
      const own = expandCompose(composed.get(url), systems);
      codes = own.codes;
      binding.grammar = own.grammar;
    }
    if (Object.keys(codes).length > 0) {
      binding.file = fileKey(url, files);
      files.set(binding.file, {
        url,
        systems: Object.fromEntries(
          Object.keys(codes)
            .sort()
            .map((s) => [s, [...codes[s]!].sort()]),
        ),
      });
    }
    bindings.set(url, binding);
    return binding;
  }

  return {
    bindingFor,
    files: () => new Map([...files.entries()].sort(([a], [b]) => a.localeCompare(b))),
    index: () =>
      Object.fromEntries(
        [...files.entries()].map(([key, codes]) => [codes.url, key] as const).sort(([a], [b]) => a.localeCompare(b)),
      ),
  };
}

/** Selectable codes of an expansion (abstract entries only group others). */
function collectContains(contains: Json[], into: Record<string, Set<string>>): void {
  for (const c of contains) {
    if (c.code && c.system && c.abstract !== true) (into[c.system] ??= new Set()).add(c.code);
    if (c.contains) collectContains(c.contains, into);
  }
}

function expandCompose(
  vs: Json | undefined,
  systems: Map<string, Json>,
): { codes: Record<string, Set<string>>; grammar?: CodeGrammar } {
  const codes: Record<string, Set<string>> = {};
  if (!vs?.compose?.include || vs.compose.exclude) return { codes, grammar: 'any' };
  let grammar: CodeGrammar | undefined;
  for (const inc of vs.compose.include as Json[]) {
    const system = inc.system as string | undefined;
    if (!system || inc.filter || inc.valueSet) return { codes: {}, grammar: 'any' };
    if (inc.concept) {
      for (const c of inc.concept as Json[]) (codes[system] ??= new Set()).add(c.code);
      continue;
    }
    const cs = systems.get(system);
    if (cs?.content === 'complete') {
      collectConcepts(cs.concept ?? [], system, codes);
    } else if (GRAMMAR_SYSTEMS[system]) {
      if (grammar && grammar !== GRAMMAR_SYSTEMS[system]) return { codes: {}, grammar: 'any' };
      grammar = GRAMMAR_SYSTEMS[system];
    } else {
      return { codes: {}, grammar: 'any' };
    }
  }
  return grammar ? { codes, grammar } : { codes };
}

function collectConcepts(concepts: Json[], system: string, into: Record<string, Set<string>>): void {
  for (const c of concepts) {
    (into[system] ??= new Set()).add(c.code);
    if (c.concept) collectConcepts(c.concept, system, into);
  }
}

function fileKey(url: string, taken: Map<string, unknown>): string {
  const base = unversioned(url.startsWith(FHIR_VALUESET_PREFIX) ? url.slice(FHIR_VALUESET_PREFIX.length) : url)
    .replace(/^https?:\/\//, '')
    .replace(/[^A-Za-z0-9.-]+/g, '_')
    .replace(/^_+|_+$/g, '');
  let key = base;
  for (let i = 2; taken.has(key); i++) key = `${base}_${i}`;
  return key;
}
