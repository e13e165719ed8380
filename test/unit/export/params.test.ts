/** The kick-off's parameters parsed into typed values (shared/export/params.ts). */
import { describe, expect, it } from 'vitest';
import { EXPORT_TYPES, parseExportRequest } from '../../../shared/export/params';
import { statusOf } from '../../support/errors';

const get = (query: string, prefer?: string) => parseExportRequest('GET', new URLSearchParams(query), undefined, prefer);
const post = (body: unknown) => parseExportRequest('POST', new URLSearchParams(), body, undefined);

describe('export parameters', () => {
  it('default to every exported type, no filter, no _since', () => {
    expect(get('')).toEqual({ types: [...EXPORT_TYPES], typeFilters: [] });
    expect(EXPORT_TYPES.slice(0, 4)).toEqual(['Patient', 'Group', 'Device', 'Observation']);
  });

  it('read _type (comma lists and repeats, in file order), _since (normalised to UTC) and _typeFilter', () => {
    const r = get(`_type=Observation,Patient&_type=Condition&_since=2025-03-01T10:00:00%2B02:00&_typeFilter=${encodeURIComponent('Observation?code=omh:heart-rate:2.0')}`);
    expect(r).toEqual({ types: ['Patient', 'Observation', 'Condition'], explicitTypes: ['Patient', 'Observation', 'Condition'], since: '2025-03-01T08:00:00.000Z', typeFilters: [['Observation', 'code=omh:heart-rate:2.0']] });
  });

  it('read a POST Parameters body, patient references included', () => {
    const r = post({
      resourceType: 'Parameters',
      parameter: [
        { name: '_type', valueString: 'Patient' },
        { name: '_since', valueInstant: '2025-01-01T00:00:00Z' },
        { name: 'patient', valueReference: { reference: 'Patient/7' } },
        { name: 'patient', valueReference: { reference: 'Patient/9' } },
        { name: '_outputFormat', valueString: 'ndjson' },
      ],
    });
    expect(r).toEqual({ types: ['Patient'], explicitTypes: ['Patient'], since: '2025-01-01T00:00:00.000Z', typeFilters: [], patients: [7, 9] });
    expect(post(undefined)).toEqual({ types: [...EXPORT_TYPES], typeFilters: [] });
  });

  it('leave out what cannot be applied under handling=lenient, and refuse it otherwise', () => {
    expect(statusOf(() => get('_type=Practitioner,Patient&foo=1'))).toBe(400);
    expect(get('_type=Practitioner,Patient&foo=1', 'respond-async; handling=lenient')).toEqual({ types: ['Patient'], explicitTypes: ['Patient'], typeFilters: [] });
    // Malformed values are refused either way.
    expect(statusOf(() => get('_since=tomorrow', 'handling=lenient'))).toBe(400);
    expect(statusOf(() => get('_outputFormat=xml', 'handling=lenient'))).toBe(400);
  });

  it('treat parameter names as text, never as keys of an object', () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(statusOf(() => get(`${name}=1`))).toBe(400);
      expect(statusOf(() => post({ resourceType: 'Parameters', parameter: [{ name, valueString: 'x' }] }))).toBe(400);
    }
  });
});
