import { describe, expect, it } from 'vitest';
import { fromResult, toEvent } from '../../../local/api-gateway-event';

describe('toEvent', () => {
  it('builds a payload v2 event as API Gateway does', () => {
    const event = toEvent({
      method: 'post',
      url: '/FHIR/R5/Observation?code=a&code=b&date=ge2025',
      headers: { Host: 'localhost:8000', 'Content-Type': 'application/json', Cookie: 'a=1; b=2', 'X-Multi': ['x', 'y'] },
      body: '{"a":1}',
    });
    expect(event.version).toBe('2.0');
    expect(event.routeKey).toBe('ANY /FHIR/R5/{proxy+}');
    expect(event.rawPath).toBe('/FHIR/R5/Observation');
    expect(event.rawQueryString).toBe('code=a&code=b&date=ge2025');
    expect(event.queryStringParameters).toEqual({ code: 'a,b', date: 'ge2025' });
    expect(event.pathParameters).toEqual({ proxy: 'Observation' });
    expect(event.cookies).toEqual(['a=1', 'b=2']);
    expect(event.headers).toMatchObject({ host: 'localhost:8000', 'x-multi': 'x,y' });
    expect(event.headers['cookie']).toBeUndefined();
    expect(event.requestContext.http.method).toBe('POST');
    expect(event.requestContext.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(event.body).toBe('{"a":1}');
    expect(event.isBase64Encoded).toBe(false);
  });

  it('takes query names that are prototype names as plain keys', () => {
    const event = toEvent({ method: 'GET', url: '/x?constructor=1&constructor=2&__proto__=p&toString=t', headers: {} });
    expect({ ...event.queryStringParameters }).toEqual({ constructor: '1,2', ['__proto__']: 'p', toString: 't' });
    expect(Object.hasOwn(event.queryStringParameters!, '__proto__')).toBe(true);
  });

  it('Base64-encodes bodies of non-text media types', () => {
    const event = toEvent({ method: 'POST', url: '/x', headers: { 'content-type': 'application/octet-stream' }, body: Buffer.from([0, 1, 2]) });
    expect(event.isBase64Encoded).toBe(true);
    expect(Buffer.from(event.body!, 'base64')).toEqual(Buffer.from([0, 1, 2]));
    expect(event.routeKey).toBe('$default');
  });
});

describe('fromResult', () => {
  it('turns a plain object into a 200 JSON response', () => {
    const out = fromResult({ hello: 'world' } as never);
    expect(out.status).toBe(200);
    expect(JSON.parse(out.body.toString())).toEqual({ hello: 'world' });
  });

  it('keeps status, lower-cases headers and decodes Base64 bodies', () => {
    const out = fromResult({ statusCode: 201, headers: { 'X-A': 'b' }, body: Buffer.from('hi').toString('base64'), isBase64Encoded: true, cookies: ['c=1'] });
    expect(out).toEqual({ status: 201, headers: { 'x-a': 'b' }, cookies: ['c=1'], body: Buffer.from('hi') });
  });
});
