/**
 * The standard's own R4 examples (`hl7.fhir.r4.examples`: every resource but the conformance ones
 * and the specification's Bundles of definitions) through the converter, the loss detector and
 * the R5 validator. Prints a table per type (converted with no loss, with loss, failed) and the
 * most frequent dropped paths and failure reasons; docs/r4-import.md carries the totals.
 *
 * Target: at least 90% of the examples of the types this service stores become valid R5. The
 * failures left are the ones the conversion contract expects: codes passed through untranslated
 * that R5 no longer allows, and elements R5 made required that R4 cannot supply.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { isKnownResourceType } from '../../../shared/fhir/definitions';
import { loadFhirPath } from '../../../shared/fhir/fhirpath';
import { importExample, r4Corpus, type CorpusResult } from '../../support/r4-corpus';

let results: CorpusResult[];

beforeAll(async () => {
  await loadFhirPath();
  results = [];
  for (const example of r4Corpus()) results.push(await importExample(example));
}, 240_000);

const pad = (s: string | number, n: number) => String(s).padEnd(n);

function counted(items: readonly string[], top: number): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, top);
}

/** What the contract expects to fail: an untranslated code, or an element R5 made required. */
const EXPECTED_FAILURE = /is not in the required value set|missing required element|SHALL be referred to from elsewhere|can only be populated when|is not a valid base64Binary/;

describe('the R4 example corpus', () => {
  it('prints the table and meets the target for the stored types', () => {
    const types = [...new Set(results.map((r) => r.type))].sort();
    const lines = [`${pad('type', 28)}${pad('examples', 10)}${pad('no loss', 9)}${pad('loss', 6)}failed`];
    for (const type of types) {
      const of = results.filter((r) => r.type === type);
      const n = (o: CorpusResult['outcome']) => of.filter((r) => r.outcome === o).length;
      lines.push(`${pad(`${type}${of[0]!.accepted ? ' *' : ''}`, 28)}${pad(of.length, 10)}${pad(n('no-loss'), 9)}${pad(n('loss'), 6)}${n('failed')}`);
    }
    const stored = results.filter((r) => r.accepted);
    const valid = (rs: CorpusResult[]) => rs.filter((r) => r.outcome !== 'failed').length;
    const share = (rs: CorpusResult[]) => `${valid(rs)} of ${rs.length} (${((100 * valid(rs)) / rs.length).toFixed(1)}%)`;
    lines.push('', `* stored types: ${share(stored)} valid R5 (${stored.filter((r) => r.outcome === 'no-loss').length} with no loss); all types: ${share(results)}`);
    lines.push('', 'most frequent dropped paths (stored types):');
    for (const [path, n] of counted(stored.flatMap((r) => r.dropped.map((d) => d.replace(/\[\d+\]/g, ''))), 12)) lines.push(`  ${pad(n, 5)}${path}`);
    lines.push('', 'failures (stored types):');
    for (const [reason, n] of counted(stored.filter((r) => r.outcome === 'failed').map((r) => `${r.type}: ${r.failure}`), 20)) lines.push(`  ${pad(n, 5)}${reason}`);
    console.log(lines.join('\n'));

    expect(stored.length).toBeGreaterThan(250);
    expect(valid(stored) / stored.length).toBeGreaterThanOrEqual(0.9);
    const unexpected = stored.filter((r) => r.outcome === 'failed' && !EXPECTED_FAILURE.test(r.failure ?? ''));
    expect(unexpected.map((r) => `${r.file}: ${r.failure}`)).toEqual([]);
  });

  it('turns every example into an R5 resource of its type unless R5 removed the type', () => {
    const lost = results.filter((r) => r.failure === 'no R5 counterpart');
    expect(lost.filter((r) => isKnownResourceType(r.type)).map((r) => r.file)).toEqual([]);
    expect(lost.length).toBeGreaterThan(0);
  });
});
