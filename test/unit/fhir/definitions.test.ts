import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileDefinitions, GENERATED_DIR, writeDefinitions } from '../../../scripts/fhir-compile';
import {
  elementAtPath,
  isKnownResourceType,
  manifest,
  searchParamsOf,
  typeDefinition,
  valueSetCodes,
} from '../../../shared/fhir/definitions';

function listFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}

describe('compiled R5 definitions', () => {
  const temp = mkdtempSync(join(tmpdir(), 'fhir-compile-'));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  it('are up to date with the compiler (regenerate with npm run fhir:compile)', () => {
    writeDefinitions(temp, compileDefinitions().files);
    const fresh = listFiles(temp).map((f) => relative(temp, f)).sort();
    const committed = listFiles(GENERATED_DIR).map((f) => relative(GENERATED_DIR, f)).sort();
    expect(committed).toEqual(fresh);
    const stale = fresh.filter((f) => readFileSync(join(temp, f), 'utf8') !== readFileSync(join(GENERATED_DIR, f), 'utf8'));
    expect(stale).toEqual([]);
  });

  it('compile deterministically', () => {
    const a = compileDefinitions().files;
    const b = compileDefinitions().files;
    expect([...a.keys()]).toEqual([...b.keys()]);
    expect([...a.entries()].every(([k, v]) => b.get(k) === v)).toBe(true);
  });

  it('cover every R5 resource type', () => {
    expect(manifest.fhirVersion).toBe('5.0.0');
    expect(manifest.resourceTypes).toHaveLength(158);
    for (const type of manifest.resourceTypes) expect(typeDefinition(type)?.kind).toBe('resource');
    expect(isKnownResourceType('Observation')).toBe(true);
    expect(isKnownResourceType('DomainResource')).toBe(false);
    expect(isKnownResourceType('observation')).toBe(false);
    expect(isKnownResourceType('constructor')).toBe(false);
  });

  it('hold elements with types, cardinality, choices, content references and required bindings', () => {
    const obs = typeDefinition('Observation')!;
    const status = obs.elements.find((e) => e.name === 'status')!;
    expect(status).toMatchObject({ min: 1, max: 1, types: [{ code: 'code' }] });
    expect(status.binding).toMatchObject({ valueSet: 'http://hl7.org/fhir/ValueSet/observation-status', file: 'observation-status' });
    expect(valueSetCodes(status.binding!.file!).systems['http://hl7.org/fhir/observation-status']).toContain('final');
    const value = obs.elements.find((e) => e.name === 'value')!;
    expect(value.choice).toBe(true);
    expect(value.types!.map((t) => t.code)).toContain('Quantity');
    expect(obs.elements.find((e) => e.name === 'subject')!.types![0]!.targets).toContain('Patient');
    expect(obs.constraints!.map((c) => c.key)).toEqual(expect.arrayContaining(['dom-2', 'obs-6', 'obs-7']));

    const q = typeDefinition('Questionnaire')!;
    const nested = elementAtPath(q, 'Questionnaire.item')!.children!.find((e) => e.name === 'item')!;
    expect(nested.contentRef).toBe('Questionnaire.item');
    expect(manifest.pathsDefinedElsewhere['Questionnaire.item.item']).toBe('Questionnaire.item');
  });

  it('hold primitive formats from the primitive StructureDefinitions', () => {
    expect(manifest.primitives.id).toMatchObject({ json: 'string', regex: '[A-Za-z0-9\\-\\.]{1,64}' });
    expect(manifest.primitives.positiveInt).toMatchObject({ json: 'number', systemType: 'System.Integer' });
    expect(manifest.primitives.integer64!.json).toBe('string');
  });

  it('give each type its search parameters with expressions narrowed to that type', () => {
    const params = searchParamsOf('Condition');
    const patient = params.find((p) => p.code === 'patient')!;
    expect(patient.type).toBe('reference');
    expect(patient.expression).toBe('Condition.subject.where(resolve() is Patient)');
    expect(params.find((p) => p.code === 'code')!.expression).toBe('Condition.code');
    expect(params.find((p) => p.code === '_lastUpdated')!.expression).toBe('Resource.meta.lastUpdated');
    expect(params.filter((p) => p.code === '_text')).toHaveLength(1);
    const composite = searchParamsOf('Observation').find((p) => p.code === 'code-value-quantity')!;
    expect(composite.components!.map((c) => c.code)).toEqual(['code', 'value-quantity']);
    // The standard's experimental examples are not served.
    expect(searchParamsOf('Condition').filter((p) => p.code === 'subject')).toHaveLength(1);
  });
});
