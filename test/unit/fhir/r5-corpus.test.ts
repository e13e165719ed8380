/**
 * The standard's own example corpus (`hl7.fhir.r5.examples`, 2,822 resources) against the
 * validator, and a generated set of broken variants of those examples.
 *
 * Every example gets the full structural check. Invariants (FHIRPath) run on every example except
 * the StructureDefinitions, the Bundles of StructureDefinitions and the 161 generated ("qgen")
 * Questionnaires: their invariants (sdf-24/25 compare every element with every other, eld-* and
 * que-* run per element over tens of thousands of elements) take about 100 of the 110 seconds
 * the full run needs on this machine. `FHIR_CORPUS=full` runs those too (expect ~2 minutes).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { primitiveType, typeDefinition, type ElementDef } from '../../../shared/fhir/definitions';
import type { OutcomeIssue } from '../../../shared/fhir/outcome';
import { extractSearchIndex } from '../../../shared/fhir/search';
import { validateResource } from '../../../shared/fhir/validation';
import { newWalk, walkResource } from '../../../shared/fhir/validation/structure';
import { loadFhirPath } from '../../../shared/fhir/fhirpath';

type Json = Record<string, any>;

const FULL = process.env.FHIR_CORPUS === 'full';
const dir = dirname(createRequire(import.meta.url).resolve('hl7.fhir.r5.examples/package.json'));
const corpus = readdirSync(dir)
  .filter((f) => f.endsWith('.json') && f !== 'package.json')
  .sort()
  .map((file) => ({ file, resource: JSON.parse(readFileSync(join(dir, file), 'utf8')) as Json }));

/** Resources whose invariants the default run leaves to FHIR_CORPUS=full (see above). */
function heavy(r: Json): boolean {
  if (r.resourceType === 'StructureDefinition') return true;
  if (r.resourceType === 'Questionnaire' && String(r.id).startsWith('qgen-')) return true;
  return r.resourceType === 'Bundle' && (r.entry ?? []).some((e: Json) => e.resource?.resourceType === 'StructureDefinition');
}

/** Examples the standard publishes with errors, and what is wrong with each. */
const WRONG_EXAMPLES: Record<string, string> = {
  'Medication-med0301.json': 'identifier[0] holds only an element id: an Identifier with no content (ele-1)',
  ...Object.fromEntries(
    ['', '-history', '-multisystem', '-readtest', '-search', '-update'].map((s) => [
      `TestScript-testscript-example${s}.json`,
      "accept/contentType use the R4 codes 'xml'/'json' where R5 binds them to MIME types (required)",
    ]),
  ),
};
const WRONG_IN_FULL_RUN: Array<[RegExp, string]> = [
  [/^Questionnaire-qgen-/, 'the generated Questionnaires repeat linkIds (que-2)'],
  [
    /^StructureDefinition-(Definition|Event|FiveWs|Participant|ParticipantContactable|ParticipantLiving|Product|Publishable|Request|Shareable)\.json$/,
    'logical-model patterns with a baseDefinition but no derivation (sdf-27)',
  ],
];

const errorsOf = (issues: OutcomeIssue[]) => issues.filter((i) => i.severity === 'error');

/** The validator's first pass alone: structure, datatypes, formats, cardinality, bindings. */
async function structuralIssues(r: Json): Promise<OutcomeIssue[]> {
  const engine = await loadFhirPath();
  const walk = newWalk(engine.isValidUcumUnit);
  walkResource(r, r.resourceType, walk);
  return walk.issues;
}

async function validateExample(r: Json): Promise<OutcomeIssue[]> {
  // The heaviest conformance resources hold more, and take longer, than the service's bounds allow.
  return FULL || !heavy(r) ? validateResource(r, { unbounded: true }) : structuralIssues(r);
}

describe('the R5 example corpus', () => {
  it('validates, except the examples that are themselves wrong', async () => {
    const failing = new Map<string, string>();
    let invariantsChecked = 0;
    const started = performance.now();
    for (const { file, resource } of corpus) {
      if (FULL || !heavy(resource)) invariantsChecked++;
      const errors = errorsOf(await validateExample(resource));
      if (errors.length > 0) failing.set(file, errors[0]!.diagnostics);
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    const expected = Object.keys(WRONG_EXAMPLES).filter((f) => corpus.some((c) => c.file === f));
    const explainedInFull = [...failing.keys()].filter((f) => FULL && WRONG_IN_FULL_RUN.some(([re]) => re.test(f)));
    console.log(
      `R5 corpus: ${corpus.length} examples, ${corpus.length - failing.size} valid, ${failing.size} listed as wrong examples; ` +
        `invariants evaluated on ${invariantsChecked} (${FULL ? 'full run' : 'default run'}), ${seconds} s`,
    );
    const unexplained = [...failing.entries()].filter(([f]) => !WRONG_EXAMPLES[f] && !explainedInFull.includes(f));
    expect(unexplained).toEqual([]);
    expect(expected.filter((f) => !failing.has(f))).toEqual([]);
  }, 300_000);
});

interface Variant {
  kind: string;
  resource: Json;
  path: string;
}

const firstPresent = (r: Json, def: ElementDef[], test: (el: ElementDef) => boolean) =>
  def.find((el) => !el.choice && test(el) && r[el.name] !== undefined);

/** Breaks one example five ways, each with the path the validator must name. */
function variantsOf(r: Json): Variant[] {
  const type = r.resourceType as string;
  const elements = typeDefinition(type)!.elements;
  const copy = () => structuredClone(r);
  const out: Variant[] = [];
  out.push({ kind: 'unknown element', resource: { ...copy(), bogusElement: true }, path: `${type}.bogusElement` });
  out.push({ kind: '65-character id', resource: { ...copy(), id: 'x'.repeat(65) }, path: `${type}.id` });
  const text = firstPresent(r, elements, (el) => el.max === 1 && primitiveType(el.types?.[0]?.code ?? '')?.json === 'string' && el.name !== 'id');
  if (text) out.push({ kind: 'wrong type', resource: { ...copy(), [text.name]: 12345 }, path: `${type}.${text.name}` });
  const required = firstPresent(r, elements, (el) => el.min >= 1);
  if (required) {
    const broken = copy();
    delete broken[required.name];
    delete broken[`_${required.name}`];
    out.push({ kind: 'missing required element', resource: broken, path: `${type}.${required.name}` });
  }
  const coded = firstPresent(r, elements, (el) => el.max === 1 && el.types?.[0]?.code === 'code' && !!el.binding?.file && !el.binding.grammar);
  if (coded) out.push({ kind: 'bad required code', resource: { ...copy(), [coded.name]: 'not-a-real-code' }, path: `${type}.${coded.name}` });
  return out;
}

describe('broken variants of the corpus', () => {
  // Each variant breaks a structural rule, so the structural pass alone decides its rejection
  // (invariants can only add issues); it keeps 11,000 validations to a second or two.
  it('are each rejected at the broken element', async () => {
    const examples = corpus.filter(({ file, resource }) => !heavy(resource) && !WRONG_EXAMPLES[file]);
    const counts: Record<string, { made: number; rejected: number }> = {};
    const missed: string[] = [];
    for (const { file, resource } of examples) {
      for (const variant of variantsOf(resource)) {
        const count = (counts[variant.kind] ??= { made: 0, rejected: 0 });
        count.made++;
        const issues = errorsOf(await structuralIssues(variant.resource));
        if (issues.some((i) => i.expression?.[0] === variant.path)) count.rejected++;
        else missed.push(`${file} (${variant.kind} at ${variant.path}): ${issues.map((i) => i.expression?.[0]).join(', ') || 'accepted'}`);
      }
    }
    const total = Object.values(counts).reduce((n, c) => n + c.made, 0);
    console.log(
      `Broken variants: ${total} from ${examples.length} examples; ` +
        Object.entries(counts)
          .map(([kind, c]) => `${kind} ${c.rejected}/${c.made}`)
          .join(', '),
    );
    expect(missed).toEqual([]);
    expect(Object.keys(counts).sort()).toEqual(['65-character id', 'bad required code', 'missing required element', 'unknown element', 'wrong type']);
  }, 300_000);
});


describe('search-index extraction over the corpus', () => {
  it('computes every parameter of every example without an expression failing', async () => {
    const failures: string[] = [];
    let values = 0;
    for (const { file, resource } of corpus) {
      const index = await extractSearchIndex(resource, { onError: (param, error) => failures.push(`${file} ${param}: ${String(error)}`) });
      expect(JSON.parse(JSON.stringify(index))).toEqual(index);
      values += Object.values(index).reduce((n, list) => n + list.length, 0);
    }
    console.log(`Extraction: ${corpus.length} examples, ${values} index values`);
    expect(failures).toEqual([]);
  });
});
