/** What a write submits: the resource check, the FHIR Source it names, and the stored copy with its index. */
import { describe, expect, it } from 'vitest';
import { asResourceOf, namedSourceId, prepareStored } from '../../../shared/auxiliary/submission';
import { sourceUriPrefix } from '../../../shared/fhir/constants';
import { isHttpError } from '../../../shared/http/errors';

describe('namedSourceId', () => {
  it('takes the header, else meta.source under the source prefix', () => {
    const withMeta = { resourceType: 'Condition', meta: { source: `${sourceUriPrefix()}12` } };
    expect(namedSourceId(' 7 ', withMeta)).toBe('7');
    expect(namedSourceId('', withMeta)).toBe('12');
    expect(namedSourceId(undefined, withMeta)).toBe('12');
    expect(namedSourceId(undefined, { meta: { source: 'https://ehr.example/fhir' } })).toBeUndefined();
    expect(namedSourceId(undefined, { meta: 'odd' })).toBeUndefined();
    expect(namedSourceId(undefined, {})).toBeUndefined();
  });
});

describe('asResourceOf', () => {
  it('accepts an object of the type, refuses the rest with 400 naming resourceType', () => {
    expect(asResourceOf('Condition', { resourceType: 'Condition' })).toEqual({ resourceType: 'Condition' });
    for (const body of [null, 'x', [], { resourceType: 'Procedure' }, {}]) {
      try {
        asResourceOf('Condition', body);
        expect.unreachable();
      } catch (e) {
        expect(isHttpError(e) && e.status).toBe(400);
      }
    }
  });
});

describe('prepareStored', () => {
  it("stamps the service's id, version, time and source over the submitted meta, and indexes the stored copy", async () => {
    const submitted = {
      resourceType: 'Condition',
      id: 'upstream',
      meta: { versionId: '9', source: 'https://ehr.example/fhir', tag: [{ code: 't' }] },
      subject: { reference: 'http://localhost:8000/FHIR/R5/Patient/abc' },
      code: { text: 'Asthma' },
    };
    const head = { id: '0b7c3b5e-1111-4222-8333-444455556666', type: 'Condition', patientId: 3, sourceId: 12, version: 2, lastUpdated: '2026-01-02T03:04:05.678Z' };
    const prepared = await prepareStored(submitted, head, 'http://localhost:8000');
    expect(prepared.resource).toEqual({
      resourceType: 'Condition',
      id: head.id,
      meta: { versionId: '2', source: `${sourceUriPrefix()}12`, tag: [{ code: 't' }], lastUpdated: head.lastUpdated },
      subject: submitted.subject,
      code: submitted.code,
    });
    expect(Object.keys(prepared.resource).slice(0, 3)).toEqual(['resourceType', 'id', 'meta']);
    expect(JSON.parse(prepared.json)).toEqual(prepared.resource);
    expect(prepared.index._id).toEqual([{ c: head.id }]);
    expect(prepared.index._source).toEqual([`${sourceUriPrefix()}12`]);
    expect(prepared.index.subject).toEqual([{ r: 'Patient/abc', t: 'Patient', i: 'abc' }]);
    expect(submitted.id).toBe('upstream');
  });
});
