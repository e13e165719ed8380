/**
 * References between a Bundle's entries (shared/observations/create/references.ts): the names an
 * entry is known by, the waves entries are stored in (each after those it refers to; a cycle last),
 * and the rewrite of a reference to where its target was stored, or a warning when it was not.
 */
import { describe, expect, it } from 'vitest';
import type { ParsedEntry } from '../../../../shared/observations/create/bundle';
import { planReferences, resolveReferences } from '../../../../shared/observations/create/references';

const entry = (type: string, resource: Record<string, unknown>, fullUrl?: string): ParsedEntry => ({ ok: true, type, resource: { resourceType: type, ...resource }, ...(fullUrl ? { fullUrl } : {}) });
const refused: ParsedEntry = { ok: false, status: 400, issues: [] };

describe('planning', () => {
  it('one wave of every entry when none refers to another', () => {
    const plan = planReferences([entry('Observation', { subject: { reference: 'Patient/1' } }), refused, entry('Condition', {})]);
    expect(plan.waves).toEqual([[0, 1, 2]]);
    expect(plan.references.size).toBe(0);
  });

  it('each entry after those it refers to: by urn:uuid, by absolute fullUrl, by Type/id of either', () => {
    const plan = planReferences([
      entry('DiagnosticReport', { result: [{ reference: 'urn:uuid:s' }] }, 'urn:uuid:r'),
      entry('Observation', { hasMember: [{ reference: 'Observation/m1' }, { reference: 'https://up.example/fhir/Observation/m2' }] }, 'urn:uuid:s'),
      entry('Observation', { id: 'm1' }, 'urn:uuid:a'),
      entry('Observation', {}, 'https://up.example/fhir/Observation/m2'),
      entry('Observation', { device: { reference: 'Device/d' }, subject: { reference: 'Patient/p' } }),
      entry('Device', {}, 'https://up.example/fhir/Device/d'),
    ]);
    expect(plan.waves).toEqual([[2, 3, 5], [1, 4], [0]]);
    expect(plan.references.get(1)).toEqual([
      { path: 'Observation.hasMember[0].reference', value: 'Observation/m1', target: 2 },
      { path: 'Observation.hasMember[1].reference', value: 'https://up.example/fhir/Observation/m2', target: 3 },
    ]);
    expect(plan.references.get(4)).toEqual([{ path: 'Observation.device.reference', value: 'Device/d', target: 5 }]);
  });

  it('a name two entries share resolves to neither; local references are not followed', () => {
    const plan = planReferences([entry('Device', { id: 'd' }), entry('Device', { id: 'd' }), entry('Observation', { device: { reference: 'Device/d' }, contained: [{ resourceType: 'Device', id: 'x' }], focus: [{ reference: '#x' }] })]);
    expect(plan.waves).toEqual([[0, 1, 2]]);
  });

  it('entries in a cycle, and those after them, go last', () => {
    const plan = planReferences([
      entry('Observation', { hasMember: [{ reference: 'urn:uuid:b' }] }, 'urn:uuid:a'),
      entry('Observation', { hasMember: [{ reference: 'urn:uuid:a' }] }, 'urn:uuid:b'),
      entry('DiagnosticReport', { result: [{ reference: 'urn:uuid:a' }] }),
      entry('Observation', {}, 'urn:uuid:c'),
    ]);
    expect(plan.waves).toEqual([[3], [0, 1, 2]]);
  });
});

describe('resolving', () => {
  const report = entry('DiagnosticReport', { result: [{ reference: 'urn:uuid:s' }, { reference: 'urn:uuid:t' }], subject: { reference: 'Patient/p' } });
  const sites = [
    { path: 'DiagnosticReport.result[0].reference', value: 'urn:uuid:s', target: 1 },
    { path: 'DiagnosticReport.result[1].reference', value: 'urn:uuid:t', target: 2 },
  ];

  it('rewrites a reference to where its target was stored, and keeps one whose target was not, saying so', () => {
    const { entry: resolved, notes } = resolveReferences(report, sites, new Map([[1, 'Observation/0b9e']]));
    expect(resolved.ok && resolved.resource).toEqual({ resourceType: 'DiagnosticReport', result: [{ reference: 'Observation/0b9e' }, { reference: 'urn:uuid:t' }], subject: { reference: 'Patient/p' } });
    expect(notes).toEqual([expect.objectContaining({ severity: 'warning', expression: ['DiagnosticReport.result[1].reference'], diagnostics: expect.stringContaining('entry 2 of the Bundle (urn:uuid:t)') })]);
    // The entry as sent is left as it was.
    expect(report.ok && (report.resource as any).result[0].reference).toBe('urn:uuid:s');
  });
});
