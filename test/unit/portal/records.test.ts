/** The portal's records: the long-id rule, paging and import Bundles, results and reasons. */
import { describe, expect, it } from 'vitest';
import { chunksOf } from '../../../shared/lists';
import { addResult, emptyTally, importBundle, importResults, matches, nextLink, prepareForWrite, speaksR4, topReasons, writeResult } from '../../../shared/portal/records';
import { validateResource } from '../../../shared/fhir/validation';

const ISS = 'https://ehr.example.org/fhir/r4';

describe('records', () => {
  const observation = (id: string) => ({ resourceType: 'Observation', id, status: 'final', code: { text: 'glucose' } });

  it('moves an id over 64 characters into an identifier and gives a stable valid id', async () => {
    const long = 'x'.repeat(70);
    const moved = await prepareForWrite(observation(long), ISS);
    expect(moved.identifier).toEqual([{ system: ISS, value: long }]);
    expect(moved.id).toMatch(/^[0-9a-f]{64}$/);
    expect((await prepareForWrite(observation(long), ISS)).id).toBe(moved.id);
    expect(await validateResource(moved as never, { expectedType: 'Observation' } as never)).not.toContainEqual(expect.objectContaining({ severity: 'error' }));
    const short = observation('lab-1');
    expect(await prepareForWrite(short, ISS)).toBe(short);
  });

  it('reads searchset pages and builds import Bundles of at most 100', () => {
    const page = { link: [{ relation: 'self', url: 's' }, { relation: 'next', url: 'n' }], entry: [{ resource: observation('a'), search: { mode: 'match' } }, { resource: { resourceType: 'OperationOutcome' }, search: { mode: 'outcome' } }] };
    expect(nextLink(page)).toBe('n');
    expect(matches(page).map((r) => r.id)).toEqual(['a']);
    expect(chunksOf(Array.from({ length: 250 }, (_, i) => i), 100).map((c) => c.length)).toEqual([100, 100, 50]);
    expect(importBundle([observation('a')])).toEqual({ resourceType: 'Bundle', type: 'batch', entry: [{ resource: observation('a'), request: { method: 'POST', url: 'Observation' } }] });
    expect(speaksR4('4.0.1')).toBe(true);
    expect(speaksR4('5.0.0')).toBe(false);
  });

  it('counts stored, stored with losses and failed records, with their reasons in plain words', () => {
    const response = {
      resourceType: 'Bundle',
      type: 'batch-response',
      entry: [
        { response: { status: '201 Created', outcome: { resourceType: 'OperationOutcome', issue: [{ severity: 'information', code: 'informational', diagnostics: 'No loss.' }] } } },
        { response: { status: '201 Created', outcome: { issue: [{ severity: 'warning', code: 'not-supported', expression: ['Observation._issued'], diagnostics: 'dropped' }] } } },
        { response: { status: '400 Bad Request', outcome: { issue: [{ severity: 'error', code: 'code-invalid', expression: ['Observation.status'] }, { severity: 'warning', expression: ['Observation.foo'] }] } } },
        { response: { status: '422 Unprocessable Entity', outcome: { issue: [{ severity: 'error', code: 'required', expression: ['Observation.code'] }] } } },
      ],
    };
    const tally = emptyTally();
    for (const result of importResults(response, 5)) addResult(tally, result);
    expect(tally).toMatchObject({ stored: 2, storedWithLoss: 1, failed: 3 });
    expect(topReasons(tally.failures)).toEqual([
      { reason: 'The value of "status" is not one FHIR R5 allows', count: 1 },
      { reason: '"code" is missing', count: 1 },
      { reason: 'The study service gave no answer for it', count: 1 },
    ]);
    expect(topReasons(tally.losses)).toEqual([{ reason: 'Extra details attached to "issued" have no place in FHIR R5 and were left out', count: 1 }]);
    expect(writeResult(403, undefined)).toEqual({ stored: false, reasons: ['The study service refused it'] });
    expect(writeResult(200, { issue: [] })).toEqual({ stored: true, reasons: [] });
  });
});
