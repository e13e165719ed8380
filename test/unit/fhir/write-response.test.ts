import { describe, expect, it } from 'vitest';
import { issue } from '../../../shared/fhir/outcome';
import { parsePrefer } from '../../../shared/fhir/prefer';
import { versionHeadersOf } from '../../../shared/fhir/version-headers';
import { batchResponse, shapeWrite, writeHttpResponse, type WriteTarget } from '../../../shared/fhir/write-response';

const lastUpdated = '2026-01-02T03:04:05.678Z';
const condition = { resourceType: 'Condition', id: 'c1', meta: { versionId: '3', lastUpdated } };
const reading = { resourceType: 'Observation', id: '12', meta: { lastUpdated } };
const target: WriteTarget = { origin: 'https://cdx.example.test', base: '/fhir/r5' };

describe('shapeWrite', () => {
  it('derives the location under the base the client used, the ETag and the instant from meta', () => {
    expect(shapeWrite({ status: 201, resource: condition }, target)).toEqual({
      status: 201,
      resource: condition,
      location: 'https://cdx.example.test/fhir/r5/Condition/c1/_history/3',
      etag: 'W/"3"',
      lastModified: lastUpdated,
    });
  });

  it('names the resource, not a version, for a store whose resources carry no versionId', () => {
    const shaped = shapeWrite({ status: 201, resource: reading, versionId: '1' }, { ...target, base: '/FHIR/R5' });
    expect(shaped.location).toBe('https://cdx.example.test/FHIR/R5/Observation/12');
    expect(shaped.etag).toBe('W/"1"');
  });

  it('honours return=minimal and return=OperationOutcome, keeping the notes in every form', () => {
    const note = issue('information', 'duplicate', 'already stored');
    const minimal = shapeWrite({ status: 200, resource: condition, notes: [note] }, { ...target, returnPreference: 'minimal' });
    expect(minimal.resource).toBeUndefined();
    expect(minimal.outcome?.issue).toEqual([note]);
    const outcome = shapeWrite({ status: 200, resource: condition, notes: [note] }, { ...target, returnPreference: 'OperationOutcome' });
    expect(outcome.resource).toBeUndefined();
    expect(outcome.outcome?.issue).toEqual([issue('information', 'informational', 'OK: https://cdx.example.test/fhir/r5/Condition/c1/_history/3'), note]);
    const full = shapeWrite({ status: 201, resource: condition, notes: [note] }, { ...target, returnPreference: 'representation' });
    expect(full.resource).toBe(condition);
    expect(full.outcome?.issue).toEqual([note]);
  });
});

describe('writeHttpResponse', () => {
  it('sends Location on a 201, Content-Location on a 200, and the instant as an HTTP date', () => {
    const created = writeHttpResponse(shapeWrite({ status: 201, resource: condition }, target));
    expect(created.headers).toMatchObject({ Location: 'https://cdx.example.test/fhir/r5/Condition/c1/_history/3', ETag: 'W/"3"', 'Last-Modified': 'Fri, 02 Jan 2026 03:04:05 GMT' });
    expect(created.body).toBe(condition);
    const updated = writeHttpResponse(shapeWrite({ status: 200, resource: condition }, { ...target, returnPreference: 'minimal' }));
    expect(updated.headers).not.toHaveProperty('Location');
    expect(updated.headers).toHaveProperty('Content-Location', 'https://cdx.example.test/fhir/r5/Condition/c1/_history/3');
    expect(updated.body).toBeUndefined();
  });

  it('answers a failed write with its status and outcome', () => {
    const outcome = { resourceType: 'OperationOutcome' as const, issue: [issue('error', 'invalid', 'bad')] };
    expect(writeHttpResponse({ status: 422, outcome })).toMatchObject({ status: 422, body: outcome });
  });
});

describe('batchResponse', () => {
  it('carries the same fields as the headers, the instant as is', () => {
    const bundle = batchResponse([shapeWrite({ status: 201, resource: condition }, target)]);
    expect(bundle).toEqual({
      resourceType: 'Bundle',
      type: 'batch-response',
      entry: [{ resource: condition, response: { status: '201 Created', location: 'https://cdx.example.test/fhir/r5/Condition/c1/_history/3', etag: 'W/"3"', lastModified: lastUpdated } }],
    });
  });
});

describe('versionHeadersOf', () => {
  it('names a resource without versions by its last change', () => {
    expect(versionHeadersOf(reading)).toEqual({ ETag: `W/"${lastUpdated}"`, 'Last-Modified': 'Fri, 02 Jan 2026 03:04:05 GMT' });
    expect(versionHeadersOf(condition)).toEqual({ ETag: 'W/"3"', 'Last-Modified': 'Fri, 02 Jan 2026 03:04:05 GMT' });
    expect(versionHeadersOf({ resourceType: 'Basic' })).toEqual({});
  });
});

describe('parsePrefer', () => {
  it('reads the values whatever their case, as the write paths always did', () => {
    expect(parsePrefer('Return = "operationoutcome"')).toEqual({ return: 'OperationOutcome' });
    expect(parsePrefer('return=MINIMAL; handling=Strict')).toEqual({ return: 'minimal', handling: 'strict' });
  });
});
