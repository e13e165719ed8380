import shipped from 'fhirpath/fhir-context/r5';
import { describe, expect, it } from 'vitest';
import { manifest, searchParamsOf, typeDefinition, type ElementDef } from '../../../../shared/fhir/definitions';
import { loadFhirPath } from '../../../../shared/fhir/fhirpath';
import { r5Model } from '../../../../shared/fhir/fhirpath/model';

type Tables = Record<string, Record<string, unknown>>;

describe('FHIRPath R5 model derived from the compiled definitions', () => {
  const ours = r5Model() as unknown as Tables & { availableTypes: Set<string> };
  const theirs = shipped as unknown as Tables & { availableTypes: Set<string> };

  it.each(['path2Type', 'path2TypeWithoutElements', 'path2RefType', 'choiceTypePaths', 'path2Repeating'])(
    '%s equals the engine’s published R5 model, key for key',
    (table) => {
      const differing = Object.keys(theirs[table]!).filter((k) => JSON.stringify(ours[table]![k]) !== JSON.stringify(theirs[table]![k]));
      expect(differing).toEqual([]);
      // Every key the lazy tables now hold (all types were loaded above) is in the published model too.
      const extra = Object.keys(ours[table]!).filter((k) => !(k in theirs[table]!));
      expect(extra).toEqual([]);
    },
  );

  it('has the same type hierarchy and content references', () => {
    expect(ours.type2Parent).toEqual(theirs.type2Parent);
    expect(ours.pathsDefinedElsewhere).toEqual(theirs.pathsDefinedElsewhere);
    expect([...ours.availableTypes].sort()).toEqual([...theirs.availableTypes].sort());
  });
});

function invariantsOf(elements: readonly ElementDef[], base: string, out: Array<{ key: string; expression: string; base: string }>) {
  for (const el of elements) {
    const path = `${base}.${el.name}`;
    for (const c of el.constraints ?? []) out.push({ key: c.key, expression: c.expression, base: path });
    if (el.children) invariantsOf(el.children, path, out);
  }
  return out;
}

describe('the standard’s FHIRPath expressions', () => {
  it('compile, except the invariants the standard itself writes wrongly', async () => {
    const engine = await loadFhirPath();
    const failures: string[] = [];
    const names = [...manifest.resourceTypes, ...manifest.abstractResourceTypes, ...manifest.complexTypes];
    let count = 0;
    for (const name of names) {
      const def = typeDefinition(name)!;
      const all = invariantsOf(def.elements, name, (def.constraints ?? []).map((c) => ({ key: c.key, expression: c.expression, base: name })));
      for (const inv of all) {
        count++;
        try {
          engine.compileOnly(inv.expression, inv.base);
        } catch {
          failures.push(`${name} ${inv.key}`);
        }
      }
      for (const p of def.kind === 'resource' && !def.abstract ? searchParamsOf(name) : []) {
        if (!p.expression) continue;
        count++;
        try {
          engine.compileOnly(p.expression);
        } catch {
          failures.push(`${name} ${p.code}`);
        }
      }
    }
    console.log(`FHIRPath: ${count} invariant and search-parameter expressions compiled, ${failures.length} rejected: ${failures.join(', ')}`);
    // eld-11 writes a string literal in double quotes (contains(":")), which FHIRPath does not allow.
    expect(failures).toEqual(['ElementDefinition eld-11']);
  });
});

describe('local replacements of the engine’s asynchronous functions', () => {
  const patient = { resourceType: 'Patient', id: 'p1', name: [{ family: 'Ng' }] };
  const obs = {
    resourceType: 'Observation',
    status: 'final',
    code: { text: 'x' },
    subject: { reference: 'urn:uuid:8c0b1e9e-5f3e-4c5a-9c8e-1f2a3b4c5d6e' },
    performer: [{ reference: '#pr' }, { reference: 'https://elsewhere.example/fhir/Practitioner/9' }],
    contained: [{ resourceType: 'Practitioner', id: 'pr', name: [{ family: 'Osei' }] }],
  };
  const bundle = { resourceType: 'Bundle', type: 'transaction', entry: [{ fullUrl: obs.subject.reference, resource: patient }, { resource: obs }] };
  const env = { resource: obs, rootResource: obs, bundle };

  it('resolve() finds contained resources, Bundle entries by full URL, and types Type/id references', async () => {
    const engine = await loadFhirPath();
    expect(engine.evaluate('Observation.subject.resolve().name.family', obs, env)).toEqual(['Ng']);
    expect(engine.evaluate('Observation.performer.resolve().ofType(Practitioner).count()', obs, env)).toEqual([2]);
    expect(engine.evaluate("Observation.performer.where(resolve() is Practitioner).resolve().name.family", obs, env)).toEqual(['Osei']);
    expect(engine.evaluate('Observation.subject.where(resolve() is Patient).exists()', obs, { resource: obs, rootResource: obs })).toEqual([false]);
  });

  it('memberOf() checks the compiled code sets and is empty for a value set it does not have', async () => {
    const engine = await loadFhirPath();
    const vs = 'http://hl7.org/fhir/ValueSet/observation-status';
    expect(engine.evaluate(`status.memberOf('${vs}')`, obs, env)).toEqual([true]);
    expect(engine.evaluate(`'bogus'.memberOf('${vs}')`, obs, env)).toEqual([false]);
    expect(engine.evaluate(`status.memberOf('http://example.org/ValueSet/unknown')`, obs, env)).toEqual([]);
  });

  it('matches() accepts the standard’s non-Unicode escapes', async () => {
    const engine = await loadFhirPath();
    expect(engine.evaluate("'a.b'.matches('^[^\\\\s\\\\.,:;\\\\\\'\"]{1,64}(\\\\.[a-z]+)*$')", obs, env)).toEqual([true]);
  });
});
