/**
 * R5 validation and search-index extraction over the standard's whole example corpus
 * (`hl7.fhir.r5.examples`, 2,822 resources): per-resource time (median, p90, p99, max), all
 * examples and the clinical/administrative ones apart (the conformance resources, StructureDefinitions
 * above all, carry invariants that cost tens of milliseconds each). Then the cold path inside a
 * Lambda bundle: import, first validation and first extraction in fresh processes. Target: median
 * validation of the clinical resources under 0.5 ms a resource, p99 under 2 ms.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { bundleEntry, FAMILY_ASSETS, REPO_ROOT } from '../scripts/bundle';
import { extractSearchIndex } from '../shared/fhir/search';
import { validateResource } from '../shared/fhir/validation';
import { lambdaLikeEnvironment } from './cold-start';
import { median, percentile, printTable } from './table';

type Json = Record<string, any>;

const COLD_RUNS = Number(process.env.BENCH_RUNS ?? 7);

function loadCorpus(): Array<{ file: string; resource: Json }> {
  const dir = dirname(createRequire(import.meta.url).resolve('hl7.fhir.r5.examples/package.json'));
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json') && f !== 'package.json')
    .sort()
    .map((file) => ({ file, resource: JSON.parse(readFileSync(join(dir, file), 'utf8')) as Json }));
}

/** Conformance and knowledge artefacts, as opposed to clinical and administrative records. */
const CONFORMANCE = new Set([
  'StructureDefinition',
  'CodeSystem',
  'ValueSet',
  'ConceptMap',
  'SearchParameter',
  'OperationDefinition',
  'CapabilityStatement',
  'CompartmentDefinition',
  'ImplementationGuide',
  'NamingSystem',
  'StructureMap',
  'GraphDefinition',
  'MessageDefinition',
  'TerminologyCapabilities',
  'TestScript',
  'Questionnaire',
]);
const isConformance = (r: Json) =>
  CONFORMANCE.has(r.resourceType) ||
  (r.resourceType === 'Bundle' && (r.entry ?? []).some((e: Json) => CONFORMANCE.has(e.resource?.resourceType)));

function row(label: string, times: number[], extra: Record<string, string> = {}) {
  return {
    set: label,
    resources: times.length,
    'median ms': median(times).toFixed(3),
    'p90 ms': percentile(times, 90).toFixed(3),
    'p99 ms': percentile(times, 99).toFixed(2),
    'max ms': Math.max(...times).toFixed(1),
    'total s': (times.reduce((a, b) => a + b, 0) / 1000).toFixed(1),
    ...extra,
  };
}

/** Each item's time; with `best` > 1, the best of that many runs (its cost without the machine's other work). */
async function timeEach(items: Json[], fn: (r: Json) => Promise<unknown>, best = 1): Promise<number[]> {
  const times: number[] = [];
  for (const r of items) {
    let fastest = Infinity;
    for (let run = 0; run < best; run++) {
      const t0 = performance.now();
      await fn(r);
      fastest = Math.min(fastest, performance.now() - t0);
    }
    times.push(fastest);
  }
  return times;
}

const PROBE = `
const t0 = performance.now();
const m = await import('./index.mjs');
const t1 = performance.now();
await m.validateResource({ resourceType: 'Observation', status: 'final', code: { text: 'x' }, valueQuantity: { value: 1 } });
const t2 = performance.now();
await m.extractSearchIndex({ resourceType: 'Observation', status: 'final', code: { text: 'x' } });
const t3 = performance.now();
await m.validateResource({ resourceType: 'Observation', status: 'final', code: { text: 'y' } });
const t4 = performance.now();
process.stdout.write(JSON.stringify([t1 - t0, t2 - t1, t3 - t2, t4 - t3]));
`;

function coldPath(): void {
  const dir = mkdtempSync(join(tmpdir(), 'bench-fhir-bundle-'));
  try {
    const built = bundleEntry(join(REPO_ROOT, 'test/fixtures/fhir-knowledge-entry.ts'), dir, FAMILY_ASSETS.fhir);
    writeFileSync(join(dir, 'probe.mjs'), PROBE);
    const runs: number[][] = [];
    for (let i = 0; i < COLD_RUNS; i++) {
      const out = spawnSync(process.execPath, ['probe.mjs'], { cwd: dir, encoding: 'utf8', env: lambdaLikeEnvironment() });
      if (out.status !== 0) throw new Error(out.stderr);
      runs.push(JSON.parse(out.stdout) as number[]);
    }
    const col = (i: number) => median(runs.map((r) => r[i]!)).toFixed(1);
    printTable(`FHIR knowledge in a Lambda bundle (fhir handler + validator + search), median of ${COLD_RUNS} fresh processes`, [
      {
        'cold-start KB': (built.bytes / 1024).toFixed(0),
        'lazy engine KB': (built.lazyBytes / 1024).toFixed(0),
        'import ms': col(0),
        'first validation ms': col(1),
        'first extraction ms': col(2),
        'next validation ms': col(3),
      },
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function validationBench(): Promise<void> {
  const corpus = loadCorpus().map((c) => c.resource);
  const clinical = corpus.filter((r) => !isConformance(r));
  const conformance = corpus.filter(isConformance);
  // Warm-up: compile the expressions the clinical resources use (a Lambda compiles once too).
  await timeEach(clinical, (r) => validateResource(r));
  await timeEach(clinical, (r) => extractSearchIndex(r));

  const validClinical = await timeEach(clinical, (r) => validateResource(r));
  const bestClinical = await timeEach(clinical, (r) => validateResource(r), 3);
  // The standard's own conformance resources, which nobody writes here, with the bounds and the time limit lifted.
  const validConformance = await timeEach(conformance, (r) => validateResource(r, { unbounded: true }));
  printTable('R5 validation per resource (structure, bindings and every invariant), warm', [
    row('clinical & administrative', validClinical),
    row('clinical & administrative, best of 3 runs', bestClinical),
    row('conformance (SD, VS, CS, Questionnaire, ...)', validConformance),
    row('whole corpus', [...validClinical, ...validConformance]),
  ]);

  const target = (label: string, times: number[]) =>
    `${label}: median ${median(times).toFixed(3)} ms (target < 0.5), p99 ${percentile(times, 99).toFixed(2)} ms (target < 2) ${median(times) < 0.5 && percentile(times, 99) < 2 ? 'met' : 'NOT met'}`;
  console.log(`\n${target('clinical, one run each', validClinical)}\n${target('clinical, best of 3 runs', bestClinical)}`);

  const sizes: number[] = [];
  const extractAll = await timeEach(corpus, async (r) => sizes.push(JSON.stringify(await extractSearchIndex(r)).length));
  printTable('Search-index extraction per resource (every search parameter of the type), warm', [
    row('whole corpus', extractAll, { 'index bytes p50': String(median(sizes)), 'index bytes p99': String(percentile(sizes, 99)) }),
  ]);
  coldPath();
}
