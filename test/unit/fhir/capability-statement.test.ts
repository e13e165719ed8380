import { describe, expect, it } from 'vitest';
import { capabilityStatement } from '../../../shared/fhir/capability-statement';
import { createRegistry } from '../../../shared/fhir/registry';
import { fhirJson } from '../../../shared/http/response';

describe('CapabilityStatement', () => {
  const ok = async () => fhirJson(200, {});
  const registry = createRegistry(
    [
      {
        type: 'Observation',
        searchParams: () => [{ name: 'code', type: 'token' }],
        auth: 'caller',
        handlers: { read: ok, search: ok, create: ok },
      },
      { type: 'Patient', searchParams: () => [], auth: 'caller', handlers: { read: ok } },
    ],
    { batch: ok },
  );

  it('lists exactly the registered types, interactions and parameters', () => {
    const cs = capabilityStatement(registry, 'http://x/FHIR/R5') as any;
    expect(cs.resourceType).toBe('CapabilityStatement');
    expect(cs.fhirVersion).toBe('5.0.0');
    expect(cs.kind).toBe('instance');
    const rest = cs.rest[0];
    expect(rest.interaction).toEqual([{ code: 'batch' }]);
    expect(rest.resource.map((r: any) => r.type)).toEqual(['Observation', 'Patient']);
    const obs = rest.resource[0];
    expect(obs.interaction.map((i: any) => i.code)).toEqual(['read', 'search-type', 'create']);
    expect(obs.searchParam.map((p: any) => p.name)).toEqual(['_id', '_lastUpdated', 'code']);
    expect(rest.resource[1].searchParam).toBeUndefined();
  });

  it('lists the operations at the system level and on their types, and what it instantiates', () => {
    const withOperations = createRegistry([{ type: 'Group', searchParams: () => [], auth: 'caller', handlers: { read: ok } }], {
      operations: [
        { level: 'system', name: 'export', definition: 'http://x/OperationDefinition/export', handler: ok },
        { level: 'instance', type: 'Group', name: 'export', definition: 'http://x/OperationDefinition/group-export', handler: ok },
      ],
      instantiates: ['http://x/CapabilityStatement/bulk'],
    });
    const cs = capabilityStatement(withOperations, 'http://x/FHIR/R5') as any;
    expect(cs.instantiates).toEqual(['http://x/CapabilityStatement/bulk']);
    expect(cs.rest[0].operation).toEqual([{ name: 'export', definition: 'http://x/OperationDefinition/export' }]);
    expect(cs.rest[0].resource[0].operation).toEqual([{ name: 'export', definition: 'http://x/OperationDefinition/group-export' }]);
    expect(() => createRegistry([], { operations: [{ level: 'type', type: 'Nope', name: 'x', definition: 'http://x', handler: ok }] })).toThrow(/unregistered type Nope/);
  });

  it('never emits empty arrays (invalid in FHIR JSON)', () => {
    const cs = capabilityStatement(createRegistry([]), 'http://x') as any;
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) {
        expect(v.length).toBeGreaterThan(0);
        v.forEach(walk);
      } else if (v && typeof v === 'object') Object.values(v).forEach(walk);
    };
    const { resource, ...rest } = cs.rest[0];
    expect(resource).toEqual([]);
    walk({ ...cs, rest: [rest] });
  });
});
