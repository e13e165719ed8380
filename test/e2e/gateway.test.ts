import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../local/gateway';
import { startTestGateway } from '../support/gateway';

let gateway: Gateway;
beforeAll(async () => {
  gateway = await startTestGateway({ asSite: true });
});
afterAll(() => gateway.close());

describe('local gateway over HTTP', () => {
  it.each(['/FHIR/R5/metadata', '/fhir/r5/metadata'])('serves a CapabilityStatement at %s', async (path) => {
    const res = await fetch(`${gateway.url}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/fhir+json');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const body = await res.json();
    expect(body).toMatchObject({ resourceType: 'CapabilityStatement', fhirVersion: '5.0.0', status: 'active' });
    expect(body.implementation.url).toBe(`${gateway.url}${path.replace('/metadata', '')}`);
  });

  it('answers unknown routes with 404 and wrong methods with 405, both as OperationOutcome', async () => {
    const missing = await fetch(`${gateway.url}/FHIR/R5/Nope/1/2/3`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).resourceType).toBe('OperationOutcome');
    const wrong = await fetch(`${gateway.url}/FHIR/R5/metadata`, { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
    expect((await wrong.json()).resourceType).toBe('OperationOutcome');
    expect(wrong.headers.get('x-request-id')).toBeTruthy();
  });

  it('answers malformed JSON with 400 OperationOutcome', async () => {
    const res = await fetch(`${gateway.url}/FHIR/R5/`, { method: 'POST', headers: { 'content-type': 'application/fhir+json' }, body: '{"resourceType":' });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.resourceType).toBe('OperationOutcome');
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('answers an oversized body with 413 (Lambda limit) or API Gateway\'s own 413 past 10 MB', async () => {
    const big = JSON.stringify({ resourceType: 'Bundle', pad: 'x'.repeat(6 * 1024 * 1024) });
    const res = await fetch(`${gateway.url}/FHIR/R5/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(res.status).toBe(413);
    expect((await res.json()).resourceType).toBe('OperationOutcome');
    const huge = await fetch(`${gateway.url}/FHIR/R5/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(11 * 1024 * 1024) });
    expect(huge.status).toBe(413);
  });

  it('serves portal files the way CloudFront would, with the security headers', async () => {
    const root = await fetch(`${gateway.url}/`);
    expect(root.status).toBe(200);
    expect(root.headers.get('content-type')).toContain('text/html');
    expect(root.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await root.text()).toContain('<h1>');
    expect((await fetch(`${gateway.url}/no/such/page`)).status).toBe(404);
    expect((await fetch(`${gateway.url}/..%2f..%2fetc%2fpasswd`)).status).toBe(404);
  });

  it('reports health', async () => {
    const res = await fetch(`${gateway.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok' });
  });
});
