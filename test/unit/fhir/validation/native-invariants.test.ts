/**
 * The invariants decided in TypeScript (`shared/fhir/validation/native-invariants.ts`) against their
 * FHIRPath expressions: on every element of the standard's R5 example corpus where one applies, and
 * on generated elements of the shapes the expressions distinguish (present, absent, empty, carried
 * by an extension only, local and other references). Wherever the native verdict is given, it is
 * the engine's.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { typeDefinition, type Constraint } from '../../../../shared/fhir/definitions';
import { loadFhirPath, Lookups, type FhirPathEngine, type FhirPathEnv } from '../../../../shared/fhir/fhirpath';
import { NATIVE_INVARIANTS } from '../../../../shared/fhir/validation/native-invariants';
import { newWalk, walkResource } from '../../../../shared/fhir/validation/structure';

type Json = Record<string, any>;

const engine: FhirPathEngine = await loadFhirPath();

function fhirPathHolds(expression: string, data: unknown, env: FhirPathEnv, base?: string): boolean {
  const result = engine.evaluate(expression, data, env, base);
  return result.length === 1 && result[0] === true;
}

/** Every native verdict at every site of a resource, with the engine's beside it. */
function verdicts(resource: Json): Array<{ key: string; location: string; native: boolean; fhirPath: boolean }> {
  const walk = newWalk(engine.isValidUcumUnit);
  walkResource(resource, resource.resourceType, walk);
  return walk.sites.flatMap((site) =>
    site.constraints.flatMap((c) => {
      const native = NATIVE_INVARIANTS.get(c.key)?.(site.data, site.env);
      if (native === undefined) return [];
      return [{ key: c.key, location: site.location, native, fhirPath: fhirPathHolds(c.expression, site.data, { ...site.env, lookups: new Lookups() }, site.base) }];
    }),
  );
}

const dir = dirname(createRequire(import.meta.url).resolve('hl7.fhir.r5.examples/package.json'));
const corpus = readdirSync(dir)
  .filter((f) => f.endsWith('.json') && f !== 'package.json')
  .map((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as Json)
  // The StructureDefinitions hold no element these invariants apply to that the rest lack, and are a third of the reading.
  .filter((r) => r.resourceType !== 'StructureDefinition');

describe('native invariants', () => {
  it('agree with FHIRPath on every element of the R5 example corpus', () => {
    const decided = new Map<string, number>();
    const disagreements: string[] = [];
    for (const resource of corpus) {
      for (const v of verdicts(resource)) {
        decided.set(v.key, (decided.get(v.key) ?? 0) + 1);
        if (v.native !== v.fhirPath) disagreements.push(`${resource.resourceType}/${resource.id} ${v.location} ${v.key}: native ${v.native}, FHIRPath ${v.fhirPath}`);
      }
    }
    expect(disagreements).toEqual([]);
    // Each native invariant decided somewhere in the corpus (qrs-1 and dgr-1 on many elements, bdl-7 on every Bundle).
    expect([...NATIVE_INVARIANTS.keys()].filter((key) => !decided.has(key))).toEqual([]);
  });

  /** A constraint of a definition by key, with the type whose elements it applies to. */
  function constraintOf(type: string, key: string, path?: string): Constraint {
    const def = typeDefinition(type)!;
    const elements = path ? def.elements.find((e) => e.name === path)?.constraints : def.constraints;
    const found = elements?.find((c) => c.key === key);
    if (!found) throw new Error(`no ${key} on ${type}${path ? `.${path}` : ''}`);
    return found;
  }

  const primitive = fc.constantFrom<unknown>(undefined, 'x', '#a', '#', '#b', '', 'http://x/Patient/1/_history/2', 'Patient/1');
  const extensionOnly = { extension: [{ url: 'http://example.org/e', valueString: 'v' }] };
  /** An element's JSON with some of the named members, each present, absent, empty or an extension-only primitive. */
  const element = (names: string[]) =>
    fc.record(
      Object.fromEntries(
        names.flatMap((n) => [
          [n, fc.oneof(primitive, fc.constant([]), fc.constant([{ value: 'v' }]), fc.constant({ text: 'x' }))],
          [`_${n}`, fc.option(fc.constant(extensionOnly), { nil: undefined })],
        ]),
      ),
      { requiredKeys: [] },
    );
  const clean = (o: Json) => JSON.parse(JSON.stringify(o)) as Json;

  const DATATYPE_CASES: Array<[string, string, string[]]> = [
    ['Reference', 'ref-1', ['reference']],
    ['Reference', 'ref-2', ['reference', 'identifier', 'display', 'extension']],
    ['Coding', 'cod-1', ['code', 'display']],
    ['Identifier', 'ident-1', ['value', 'system']],
    ['Quantity', 'qty-3', ['code', 'system']],
    ['Attachment', 'att-1', ['data', 'contentType']],
  ];

  it.each(DATATYPE_CASES)('%s %s agrees with FHIRPath on generated elements', (type, key, names) => {
    const c = constraintOf(type, key);
    const native = NATIVE_INVARIANTS.get(key)!;
    fc.assert(
      fc.property(element(names), fc.array(fc.constantFrom('a', 'b'), { maxLength: 2 }), fc.boolean(), (generated, ids, contained) => {
        const data = clean(generated);
        const root = { resourceType: 'Basic', contained: ids.map((id) => ({ resourceType: 'Basic', id, code: { text: 'c' } })) };
        const resource = contained ? { resourceType: 'Basic', id: 'inner' } : root;
        const env: FhirPathEnv = { resource, rootResource: root, lookups: new Lookups() };
        const verdict = native(data, env);
        if (verdict !== undefined) expect(verdict).toBe(fhirPathHolds(c.expression, data, env, type));
      }),
      { numRuns: 400 },
    );
  });

  it('Extension ext-1 agrees with FHIRPath on generated extensions', () => {
    const c = constraintOf('Extension', 'ext-1');
    fc.assert(
      fc.property(fc.option(fc.constant([{ url: 'u', valueString: 's' }]), { nil: undefined }), fc.constantFrom(undefined, 'valueString', 'valueBoolean', '_valueString'), (extension, valueKey) => {
        const data = clean({ url: 'http://example.org/x', extension, ...(valueKey ? { [valueKey]: valueKey === '_valueString' ? extensionOnly : valueKey === 'valueBoolean' ? true : 's' } : {}) });
        const env: FhirPathEnv = { resource: data, rootResource: data, lookups: new Lookups() };
        const verdict = NATIVE_INVARIANTS.get('ext-1')!(data, env);
        if (verdict !== undefined) expect(verdict).toBe(fhirPathHolds(c.expression, data, env, 'Extension'));
      }),
      { numRuns: 100 },
    );
  });

  it('the resource-level ones agree with FHIRPath on generated contained resources and Bundles', () => {
    const meta = fc.option(fc.record({ versionId: fc.option(fc.constant('1'), { nil: undefined }), lastUpdated: fc.option(fc.constant('2020-01-01T00:00:00Z'), { nil: undefined }), security: fc.option(fc.constant([{ code: 'R' }]), { nil: undefined }) }, { requiredKeys: [] }), { nil: undefined });
    const contained = fc.array(fc.record({ resourceType: fc.constant('Basic'), id: fc.constantFrom('a', 'b'), meta, contained: fc.option(fc.constant([{ resourceType: 'Basic' }]), { nil: undefined }) }, { requiredKeys: ['resourceType', 'id'] }), { maxLength: 3 });
    fc.assert(
      fc.property(contained, fc.option(fc.constant({ status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">x</div>' }), { nil: undefined }), (list, text) => {
        const resource = clean({ resourceType: 'Basic', code: { text: 'c' }, text, contained: list.length > 0 ? list : undefined });
        const env: FhirPathEnv = { resource, rootResource: resource, lookups: new Lookups() };
        for (const key of ['dom-2', 'dom-4', 'dom-5', 'dom-6']) {
          const verdict = NATIVE_INVARIANTS.get(key)!(resource, env);
          if (verdict !== undefined) expect(verdict, key).toBe(fhirPathHolds(constraintOf('Basic', key).expression, resource, env));
        }
      }),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(
        fc.constantFrom('collection', 'history', 'batch'),
        fc.array(fc.record({ fullUrl: fc.option(fc.constantFrom('urn:a', 'urn:a1', 'http://x/Patient/1/_history/1'), { nil: undefined }), version: fc.option(fc.constantFrom('1', ''), { nil: undefined }) }, { requiredKeys: [] }), { maxLength: 4 }),
        (type, entries) => {
          const bundle = clean({
            resourceType: 'Bundle',
            type,
            entry: entries.map((e) => ({ fullUrl: e.fullUrl, resource: { resourceType: 'Basic', code: { text: 'c' }, meta: e.version ? { versionId: e.version } : undefined } })),
          });
          if (bundle.entry.length === 0) delete bundle.entry;
          const env: FhirPathEnv = { resource: bundle, rootResource: bundle, bundle, lookups: new Lookups() };
          const bdl7 = NATIVE_INVARIANTS.get('bdl-7')!(bundle, env);
          if (bdl7 !== undefined) expect(bdl7).toBe(fhirPathHolds(constraintOf('Bundle', 'bdl-7').expression, bundle, env));
          for (const entry of bundle.entry ?? []) {
            const bdl8 = NATIVE_INVARIANTS.get('bdl-8')!(entry, env);
            if (bdl8 !== undefined) expect(bdl8).toBe(fhirPathHolds(constraintOf('Bundle', 'bdl-8', 'entry').expression, entry, env, 'Bundle.entry'));
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('qrs-2 agrees with FHIRPath on generated item trees', () => {
    type Item = { linkId?: string; answer?: Array<{ valueString?: string; item?: Item[] }>; item?: Item[] };
    const item: fc.Memo<Item> = fc.memo((n) =>
      fc.record(
        {
          linkId: fc.constantFrom('1', '2', '3'),
          answer: fc.option(fc.array(fc.record({ valueString: fc.option(fc.constant('v'), { nil: undefined }), item: n > 1 ? fc.option(fc.array(item(n - 1), { maxLength: 2 }), { nil: undefined }) : fc.constant(undefined) }, { requiredKeys: [] }), { minLength: 1, maxLength: 2 }), { nil: undefined }),
          item: n > 1 ? fc.option(fc.array(item(n - 1), { minLength: 1, maxLength: 3 }), { nil: undefined }) : fc.constant(undefined),
        },
        { requiredKeys: ['linkId'] },
      ),
    );
    const c = constraintOf('QuestionnaireResponse', 'qrs-2', 'item');
    fc.assert(
      fc.property(item(4), (generated) => {
        const data = clean(generated);
        const env: FhirPathEnv = { resource: data, rootResource: data, lookups: new Lookups() };
        const verdict = NATIVE_INVARIANTS.get('qrs-2')!(data, env);
        if (verdict !== undefined) expect(verdict).toBe(fhirPathHolds(c.expression, data, env, 'QuestionnaireResponse.item'));
      }),
      { numRuns: 300 },
    );
  });
});
