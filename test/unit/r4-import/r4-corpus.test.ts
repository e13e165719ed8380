/**
 * The standard's own R4 examples (`hl7.fhir.r4.examples`: every resource but the conformance ones
 * and the specification's Bundles of definitions) through the converter, the loss report and the
 * R5 validator. Prints a table per type (converted with no loss, with loss, failed); for the types
 * the service stores, the values carried and dropped and why, and what HL7's maps carry that the
 * import drops. docs/r4-import.md carries the totals.
 *
 * Targets: at least 90% of the examples of the stored types become valid R5, failing only where the
 * conversion contract expects (codes passed through untranslated that R5 no longer allows, elements
 * R5 requires that R4 cannot supply); at most 5 of the things HL7's maps carry are dropped, each
 * listed in the docs; and the loss report is exact, audited without comparing values
 * (`test/support/r4-loss-audit.ts`): no reported path was carried, no value outside them was lost.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { R4_DOCS } from '../../../scripts/r4-compile';
import { GENERAL_DROPS } from '../../../scripts/r4-compile/docs';
import { CONVERSION_FACTS } from '../../../scripts/r4-compile/facts';
import { isKnownResourceType } from '../../../shared/fhir/definitions';
import { loadFhirPath } from '../../../shared/fhir/fhirpath';
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

const factsCarriedByHl7 = new Map(CONVERSION_FACTS.filter((f) => f.hl7 === 'carries').map((f) => [f.from, f]));

/** The documented item a drop is, when HL7's maps carry what it dropped (else undefined: the maps drop it too). */
function carriedByHl7(drop: Drop): string | undefined {
  if (drop.kind === 'primitive-extension') return 'primitive-extension';
  if (drop.kind === 'no-place' && drop.element === 'Resource.contained') return 'unreferenced-contained';
  if (drop.kind === 'removed' && drop.element && factsCarriedByHl7.has(drop.element)) return drop.element;
  return undefined;
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
    const reasons = stored.flatMap((r) => r.dropped.map((d) => `${unindexed(d.path)} [${d.kind}${carriedByHl7(d) ? ', HL7 carries' : ''}]: ${d.why}`));
    for (const [reason, n] of counted(reasons, 1000)) lines.push(`  ${pad(n, 4)}${reason.slice(0, 220)}`);
    console.log(lines.join('\n'));
    // Every drop says why in its own words.
    for (const drop of stored.flatMap((r) => r.dropped)) expect(drop.why.length, drop.path).toBeGreaterThan(10);
  });

  it('drops at most 5 of the things HL7\'s maps carry, each listed with its reason in the docs', () => {
    const stored = results.filter((r) => r.accepted);
    const items = new Map<string, Set<string>>();
    for (const r of stored) {
      for (const drop of r.dropped) {
        const item = carriedByHl7(drop);
        if (item) items.set(item, (items.get(item) ?? new Set()).add(unindexed(drop.path)));
      }
    }
    console.log(
      ["what HL7's maps carry and the import drops (stored types):", ...[...items].map(([item, paths]) => `  ${item}: ${[...paths].join(', ')}`)].join('\n'),
    );
    expect(items.size).toBeLessThanOrEqual(5);
    const documented = readFileSync(R4_DOCS, 'utf8').split("### What HL7's maps carry and the import drops")[1] ?? '';
    const listed = (item: string) => {
      const general = GENERAL_DROPS.find((g) => g.id === item);
      return documented.includes(general ? general.what : `\`${item}\``);
    };
    expect([...items.keys()].filter((item) => !listed(item))).toEqual([]);
  });

  it('reports exactly what was lost: no reported path was carried, no value outside them was lost (audited without comparing values)', () => {
    expect(audits.size).toBeGreaterThan(250);
    const falseReports = [...audits].flatMap(([file, a]) => a.falseReports.map((p) => `${file}: ${p}`));
    const unreported = [...audits].flatMap(([file, a]) => a.unreported.map((p) => `${file}: ${p}`));
    expect(falseReports).toEqual([]);
    expect(unreported).toEqual([]);
  });

  it('the audit finds what comparing by value alone misses (it can fail)', () => {
    const carePlan = examples.find((e) => e.file === 'CarePlan-example.json')!.resource;
    // By value alone, a dropped value equal to a surviving one goes unreported.
    expect(lossAudit(carePlan, (r, c) => droppedPaths(r, c.resource))!.unreported.length).toBeGreaterThan(0);
    // A report naming a path that was carried is a false report.
    expect(lossAudit(carePlan, () => ['CarePlan.status'])!.falseReports).toEqual(['CarePlan.status']);
  });

  it('turns every example into an R5 resource of its type unless R5 removed the type', () => {
    const lost = results.filter((r) => r.failure === 'no R5 counterpart');
    expect(lost.filter((r) => isKnownResourceType(r.type)).map((r) => r.file)).toEqual([]);
    expect(lost.length).toBeGreaterThan(0);
  });
});
