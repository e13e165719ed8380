/**
 * The one configured list drives routing and the CapabilityStatement: each accepted auxiliary type
 * is served and listed with its interactions and every search parameter the R5 definitions give
 * it; any other type is a 404 on every method.
 */
import { describe, expect, it } from 'vitest';
import { AUXILIARY_TYPES, NATIVE_SHARED_TYPES } from '../../../shared/auxiliary/accepted-types';
import { searchParamCapabilities } from '../../../shared/fhir/search';
import { auxiliaryWorld } from '../../support/auxiliary';
import { call } from '../../support/invoke';

/** The types the auxiliary store serves alone (Observation and Device share their entries with the service's own records). */
const served = AUXILIARY_TYPES.filter((t) => !NATIVE_SHARED_TYPES.has(t));

describe('CapabilityStatement', () => {
  it('lists every accepted auxiliary type with its interactions and search parameters', async () => {
    const res = await call('GET', '/FHIR/R5/metadata');
    expect(res.status).toBe(200);
    const resources: any[] = res.json.rest[0].resource;
    for (const type of served) {
      const entry = resources.find((r) => r.type === type);
      expect(entry, type).toBeDefined();
      expect(entry.interaction.map((i: any) => i.code)).toEqual(['read', 'vread', 'search-type', 'create', 'update', 'patch', 'delete']);
      const names = entry.searchParam.map((p: any) => p.name);
      for (const p of searchParamCapabilities(type)) expect(names, `${type}.${p.name}`).toContain(p.name);
      expect(names).toContain('patient');
      expect(names).toContain('_source');
      expect(new Set(names).size).toBe(names.length);
      const patient = entry.searchParam.find((p: any) => p.name === 'patient');
      expect(patient.documentation).toContain('patient.organization');
      expect(patient.definition).toBeUndefined();
    }
    // Condition's parameters, as the standard defines them.
    const condition = resources.find((r) => r.type === 'Condition');
    expect(condition.searchParam.find((p: any) => p.name === 'recorded-date')).toMatchObject({
      type: 'date',
      definition: 'http://hl7.org/fhir/SearchParameter/Condition-recorded-date',
    });
    // Four projections are not auxiliary types.
    for (const type of ['Patient', 'Practitioner', 'Organization', 'Group']) {
      const entry = resources.find((r) => r.type === type);
      if (entry) expect(entry.interaction.map((i: any) => i.code)).not.toContain('create');
    }
    // Device is both: the data sources' parameters, then every other of the Devices sent through FHIR Sources.
    const device = resources.find((r) => r.type === 'Device');
    expect(device.interaction.map((i: any) => i.code)).toEqual(['read', 'vread', 'search-type', 'create', 'update', 'patch', 'delete']);
    const deviceNames = device.searchParam.map((p: any) => p.name);
    for (const p of searchParamCapabilities('Device')) expect(deviceNames, `Device.${p.name}`).toContain(p.name);
    expect(new Set(deviceNames).size).toBe(deviceNames.length);
    expect(device.searchParam.find((p: any) => p.name === 'serial-number').documentation).toMatch(/^Devices sent through FHIR Sources \(with _source\)/);
  });
});

describe('routing', () => {
  it('serves every accepted type (through the alias base too) and 404s any other type on every method', async () => {
    const { alice } = await auxiliaryWorld();
    for (const type of served) {
      const res = await call('GET', `/FHIR/R5/${type}`, { token: alice.token });
      expect(res.status, type).toBe(200);
      expect(res.json.resourceType).toBe('Bundle');
    }
    expect((await call('GET', '/fhir/r5/Condition', { token: alice.token })).status).toBe(200);
    for (const [method, path] of [
      ['GET', '/FHIR/R5/Basic'],
      ['POST', '/FHIR/R5/Basic'],
      ['GET', '/FHIR/R5/Basic/1'],
      ['PUT', '/FHIR/R5/Basic/1'],
      ['DELETE', '/FHIR/R5/Basic/1'],
      ['GET', '/FHIR/R5/Questionnaire'],
    ] as const) {
      const res = await call(method, path, { token: alice.token, ...(method === 'POST' || method === 'PUT' ? { body: { resourceType: 'Basic' } } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json.issue[0].diagnostics).toMatch(/^Unsupported FHIR resource type: (Basic|Questionnaire)\.$/);
    }
  });
});
