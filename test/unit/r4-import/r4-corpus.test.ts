/**
 * The standard's own R4 examples (`hl7.fhir.r4.examples`: every resource but the conformance ones
 * and the specification's Bundles of definitions) through the converter, the loss report and the
 * R5 validator. Prints a table per type (converted with no loss, with loss, failed); for the types
 * the service stores, the values carried and dropped and why, and what HL7's maps carry that the
 * import drops. docs/r4-import.md carries the totals.
 *
 * Targets: at least 90% of the examples of the stored types become valid R5, failing only where the
 * conversion contract expects (codes passed through untranslated that R5 no longer allows, elements
 * R5 requires that R4 cannot supply); at most 5 of the things HL7's maps carry are dropped, and
 * they are the generated list in the docs (`scripts/r4-compile/hl7-maps.ts`): every drop the maps
 * would carry is listed, every listed element's item is found; the elements R5 has no valid place
 * for are kept in their cross-version extensions, not reported; and the loss report is exact, audited without comparing values
 * (`test/support/r4-loss-audit.ts`): no reported path was carried, no value outside them was lost.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { R4_DOCS } from '../../../scripts/r4-compile';
import { CONVERSION_FACTS, type ConversionFact } from '../../../scripts/r4-compile/facts';
import { mapsCarriedDrops, mapsVerdict } from '../../../scripts/r4-compile/hl7-maps';
import { isKnownResourceType } from '../../../shared/fhir/definitions';
import { loadFhirPath } from '../../../shared/fhir/fhirpath';
import { convertR4 } from '../../../shared/r4-import/convert';
import { droppedPaths } from '../../../shared/r4-import/loss';
import type { Drop } from '../../../shared/r4-import/why';
import { importExample, r4Corpus, type CorpusExample, type CorpusResult } from '../../support/r4-corpus';
import { lossAudit, type LossAudit } from '../../support/r4-loss-audit';

let examples: CorpusExample[];
let results: CorpusResult[];
/** The loss audit of each example of a stored type, by file. */
const audits = new Map<string, LossAudit>();

beforeAll(async () => {
  await loadFhirPath();
  examples = r4Corpus();
  results = [];
  for (const example of examples) {
    const result = await importExample(example);
    results.push(result);
    if (result.accepted) {
      const audit = lossAudit(example.resource);
      if (audit) audits.set(example.file, audit);
    }
  }
}, 240_000);

const pad = (s: string | number, n: number) => String(s).padEnd(n);
const unindexed = (path: string) => path.replace(/\[\d+\]/g, '');

function counted(items: readonly string[], top: number): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, top);
}

/** What the contract expects to fail: an untranslated code, or an element R5 made required. */
const EXPECTED_FAILURE = /is not in the required value set|missing required element|SHALL be referred to from elsewhere|can only be populated when|is not a valid base64Binary/;

/** The standard cross-version extensions' url before the R4 element path. */
const XVER = 'http://hl7.org/fhir/4.0/StructureDefinition/extension-';

/** What HL7's maps carry and the import drops: the one list the docs print. */
const mapsCarried = mapsCarriedDrops();

/** What HL7's maps do with a drop, for the printed list. */
function hl7Tag(drop: Drop): string {
  const verdict = mapsVerdict(drop, mapsCarried);
  return typeof verdict === 'object' ? ', HL7 carries' : verdict === 'maps drop it too' ? ', HL7 drops it too' : '';
}

describe('the R4 example corpus', () => {
  it('prints the table and meets the target for the stored types', () => {
    const types = [...new Set(results.map((r) => r.type))].sort();
    const lines = [`${pad('type', 34)}${pad('examples', 10)}${pad('no loss', 9)}${pad('loss', 6)}failed`];
    for (const type of types) {
      const of = results.filter((r) => r.type === type);
      const n = (o: CorpusResult['outcome']) => of.filter((r) => r.outcome === o).length;
      lines.push(`${pad(`${type}${of[0]!.accepted ? ' *' : ''}`, 34)}${pad(of.length, 10)}${pad(n('no-loss'), 9)}${pad(n('loss'), 6)}${n('failed')}`);
    }
    const stored = results.filter((r) => r.accepted);
    const valid = (rs: CorpusResult[]) => rs.filter((r) => r.outcome !== 'failed').length;
    const share = (rs: CorpusResult[]) => `${valid(rs)} of ${rs.length} (${((100 * valid(rs)) / rs.length).toFixed(1)}%)`;
    lines.push('', `* stored types: ${share(stored)} valid R5 (${stored.filter((r) => r.outcome === 'no-loss').length} with no loss); all types: ${share(results)}`);
    lines.push('', 'failures (stored types):');
    for (const [reason, n] of counted(stored.filter((r) => r.outcome === 'failed').map((r) => `${r.type}: ${r.failure}`), 20)) lines.push(`  ${pad(n, 5)}${reason}`);
    console.log(lines.join('\n'));

    expect(stored.length).toBeGreaterThan(250);
    expect(valid(stored) / stored.length).toBeGreaterThanOrEqual(0.9);
    const unexpected = stored.filter((r) => r.outcome === 'failed' && !EXPECTED_FAILURE.test(r.failure ?? ''));
    expect(unexpected.map((r) => `${r.file}: ${r.failure}`)).toEqual([]);
  });

  it('prints, per stored type, the values carried and dropped and why', () => {
    const stored = results.filter((r) => r.accepted);
    const kinds = ['unknown-element', 'wrong-shape', 'removed', 'no-place', 'primitive-extension'] as const;
    const lines = [`${pad('stored type', 22)}${pad('examples', 10)}${pad('values', 8)}${pad('carried', 9)}${pad('dropped', 9)}dropped paths by why (${kinds.join(', ')})`];
    for (const type of [...new Set(stored.map((r) => r.type))].sort()) {
      const of = stored.filter((r) => r.type === type);
      const audited = of.map((r) => audits.get(r.file)).filter((a) => a !== undefined);
      const values = audited.reduce((n, a) => n + a.values, 0);
      const dropped = audited.reduce((n, a) => n + a.dropped, 0);
      const drops = of.flatMap((r) => r.dropped);
      const byKind = kinds.map((k) => drops.filter((d) => d.kind === k).length).join(' / ');
      lines.push(`${pad(type, 22)}${pad(of.length, 10)}${pad(values, 8)}${pad(values - dropped, 9)}${pad(dropped, 9)}${drops.length === 0 ? '-' : byKind}`);
    }
    lines.push('', 'dropped paths (stored types), with why:');
    const reasons = stored.flatMap((r) => r.dropped.map((d) => `${unindexed(d.path)} [${d.kind}${hl7Tag(d)}]: ${d.why}`));
    for (const [reason, n] of counted(reasons, 1000)) lines.push(`  ${pad(n, 4)}${reason.slice(0, 220)}`);
    console.log(lines.join('\n'));
    // Every drop says why in its own words.
    for (const drop of stored.flatMap((r) => r.dropped)) expect(drop.why.length, drop.path).toBeGreaterThan(10);
  });

  it('drops at most 5 of the things HL7\'s maps carry: exactly the list in the docs, each with its reason', () => {
    const stored = results.filter((r) => r.accepted);
    const items = new Map<string, Set<string>>();
    const undecided: string[] = [];
    for (const r of stored) {
      for (const drop of r.dropped) {
        const verdict = mapsVerdict(drop, mapsCarried);
        if (verdict === undefined) undecided.push(`${r.file}: ${drop.path} [${drop.kind}]`);
        else if (typeof verdict === 'object') items.set(verdict.id, (items.get(verdict.id) ?? new Set()).add(unindexed(drop.path)));
      }
    }
    console.log(
      ["what HL7's maps carry and the import drops (stored types):", ...[...items].map(([item, paths]) => `  ${item}: ${[...paths].join(', ')}`)].join('\n'),
    );
    // Every drop is decided: a listed item, or one the facts say the maps make too (or input that is not R4).
    expect(undecided).toEqual([]);
    // The list names exactly what the corpus drops of what the maps carry: none missing, and no
    // element's item stale (the kinds of drop any type may show stay listed without an example).
    const found = [...items.keys()];
    expect(found.filter((id) => !mapsCarried.some((i) => i.id === id))).toEqual([]);
    expect(mapsCarried.filter((i) => !i.general && !found.includes(i.id)).map((i) => i.id)).toEqual([]);
    expect(mapsCarried.length).toBeLessThanOrEqual(5);
    // And the docs print that list (generated; the compiled-tables test keeps it current).
    const documented = readFileSync(R4_DOCS, 'utf8').split("### What HL7's maps carry and the import drops")[1] ?? '';
    expect(mapsCarried.filter((i) => !documented.includes(`| ${i.what} |`)).map((i) => i.id)).toEqual([]);
  });

  it('decides each drop by the facts: a listed item, one the maps make too, or not R4 (the verdict can fail)', () => {
    const drop = (d: Partial<Drop>): Drop => ({ path: 'X.y', kind: 'removed', why: 'because', ...d });
    // A fact that drops what the maps carry makes a listed item.
    const carries: ConversionFact[] = [{ from: 'Specimen.container', to: null, hl7: 'carries', reason: 'because' }];
    expect(mapsVerdict(drop({ element: 'Specimen.container' }), mapsCarriedDrops(carries), carries)).toMatchObject({ id: 'Specimen.container' });
    expect(mapsVerdict(drop({ kind: 'no-place', element: 'Resource.contained' }), mapsCarried)).toMatchObject({ id: 'unreferenced-contained' });
    expect(mapsVerdict(drop({ element: 'Coverage.payor' }), mapsCarried)).toBe('maps drop it too');
    // The parts of a value no fact takes go nowhere, as in the maps; but Medication.amount is kept
    // whole in its cross-version extension, so a drop of its denominator is undecided.
    const denominator = drop({ path: 'Medication.amount.denominator', element: 'Medication.amount' });
    expect(mapsVerdict(denominator, mapsCarried, CONVERSION_FACTS.filter((f) => f.from !== 'Medication.amount'))).toBe('maps drop it too');
    expect(mapsVerdict(denominator, mapsCarried)).toBeUndefined();
    expect(mapsVerdict(drop({ kind: 'unknown-element' }), mapsCarried)).toBe('not R4');
    // No fact says what the maps do with it: undecided, and the corpus test fails on it.
    expect(mapsVerdict(drop({ element: 'Encounter.nothing' }), mapsCarried)).toBeUndefined();
    expect(mapsVerdict(drop({ kind: 'no-place', element: 'Encounter.status' }), mapsCarried)).toBeUndefined();
    // An element the import keeps in a cross-version extension is not one the maps drop: a drop of it is undecided.
    expect(mapsVerdict(drop({ element: 'Encounter.statusHistory' }), mapsCarried)).toBeUndefined();
    expect(mapsVerdict(drop({ element: 'Specimen.container' }), mapsCarried)).toBeUndefined();
    expect(mapsVerdict(drop({ element: 'Immunization.programEligibility' }), mapsCarried)).toBeUndefined();
    // A list without an item: that drop is no longer listed, so the corpus test's check fails.
    expect(mapsVerdict(drop({ element: 'Specimen.container' }), [], carries)).toBeUndefined();
  });

  it('keeps in their cross-version extensions what R5 has no valid place for: no loss reported, the values in the output', () => {
    const kept = ['Immunization.programEligibility', 'Specimen.container', 'Specimen.contained', 'Medication.amount'];
    const reported = results.flatMap((r) => r.dropped.map((d) => unindexed(d.path))).filter((p) => kept.some((k) => p === k || p.startsWith(`${k}.`)));
    expect(reported).toEqual([]);
    const converted = (file: string) => convertR4(examples.find((e) => e.file === file)!.resource)!.resource as Record<string, any>;
    const inExtension = (resource: Record<string, any>, element: string) => (resource.extension ?? []).filter((e: { url: string }) => e.url === `${XVER}${element}`);

    const immunization = converted('Immunization-example.json');
    expect(immunization.programEligibility).toBeUndefined();
    expect(inExtension(immunization, 'Immunization.programEligibility')).toEqual([
      { url: `${XVER}Immunization.programEligibility`, valueCodeableConcept: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/immunization-program-eligibility', code: 'ineligible' }] } },
    ]);

    // The container's additive refers to a contained Substance, which stays with it.
    const specimen = converted('Specimen-101.json');
    expect(specimen.container).toBeUndefined();
    expect(specimen.contained.map((c: { id: string }) => c.id)).toEqual(['hep']);
    expect(inExtension(specimen, 'Specimen.container')).toEqual([
      {
        url: `${XVER}Specimen.container`,
        extension: [
          { url: 'identifier', valueIdentifier: { value: '48736-15394-75465' } },
          { url: 'description', valueString: 'Green Gel tube' },
          { url: 'type', valueCodeableConcept: { text: 'Vacutainer' } },
          { url: 'capacity', valueQuantity: { value: 10, unit: 'mL' } },
          { url: 'specimenQuantity', valueQuantity: { value: 6, unit: 'mL' } },
          { url: 'additive', valueReference: { reference: '#hep' } },
        ],
      },
    ]);

    // The numerator in R5's totalVolume, the whole Ratio in the extension.
    const medication = converted('Medication-med0313.json');
    const amount = examples.find((e) => e.file === 'Medication-med0313.json')!.resource.amount;
    expect(medication.totalVolume).toEqual(amount.numerator);
    expect(inExtension(medication, 'Medication.amount')).toEqual([{ url: `${XVER}Medication.amount`, valueRatio: amount }]);
    // And each is valid R5 (the corpus' first test validates every example).
    for (const file of ['Immunization-example.json', 'Specimen-101.json', 'Medication-med0313.json']) {
      expect(results.find((r) => r.file === file)!.outcome, file).toBe('no-loss');
    }
  });

  it('reports exactly what was lost: no reported path was carried, no value outside them was lost (audited without comparing values)', () => {
    expect(audits.size).toBeGreaterThan(250);
    const falseReports = [...audits].flatMap(([file, a]) => a.falseReports.map((p) => `${file}: ${p}`));
    const unreported = [...audits].flatMap(([file, a]) => a.unreported.map((p) => `${file}: ${p}`));
    expect(falseReports).toEqual([]);
    expect(unreported).toEqual([]);
  });

  it('the audit finds what comparing by value alone misses (it can fail)', () => {
    // Coverage.payor is dropped, and its reference equals one carried elsewhere (the beneficiary's).
    const coverage = examples.find((e) => e.file === 'Coverage-SP1234.json')!.resource;
    // By value alone, a dropped value equal to a surviving one goes unreported.
    expect(lossAudit(coverage, (r, c) => droppedPaths(r, c.resource))!.unreported.length).toBeGreaterThan(0);
    // A report naming a path that was carried is a false report.
    expect(lossAudit(coverage, () => ['Coverage.status'])!.falseReports).toEqual(['Coverage.status']);
  });

  it('turns every example into an R5 resource of its type unless R5 removed the type', () => {
    const lost = results.filter((r) => r.failure === 'no R5 counterpart');
    expect(lost.filter((r) => isKnownResourceType(r.type)).map((r) => r.file)).toEqual([]);
    expect(lost.length).toBeGreaterThan(0);
  });
});
