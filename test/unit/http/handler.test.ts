import { describe, expect, it } from 'vitest';
import { fromResult, toEvent } from '../../../local/api-gateway-event';
import { invokeLambda } from '../../../local/lambda-invoke';
import { RETRY_AFTER_SECONDS } from '../../../shared/http/deadline';
import { conflict, fieldErrors } from '../../../shared/http/errors';
import { authenticator } from '../../../shared/auth/authenticate';
import { createHandler } from '../../../shared/http/handler';
import { json } from '../../../shared/http/response';
import { resetConfig } from '../../../shared/config';

let stored: unknown[] = [];

const handler = createHandler({
  authenticator,
  family: 'test',
  routes: [
    {
      method: 'POST',
      path: '/FHIR/R5/Thing',
      auth: 'none',
      handler: async (req) => {
        stored.push(req.body);
        return json(201, { received: req.body });
      },
    },
    { method: 'GET', path: '/FHIR/R5/Thing/{id}', auth: 'none', handler: async (req) => json(200, { id: req.params.id, q: req.query.getAll('q') }) },
    { method: 'GET', path: '/FHIR/R5/boom', auth: 'none', handler: async () => { throw new Error('secret internal detail'); } },
    { method: 'GET', path: '/FHIR/R5/slow', auth: 'none', handler: () => new Promise(() => undefined) },
    { method: 'POST', path: '/api/v1/things', auth: 'none', handler: async () => { throw fieldErrors({ dataSource: ['This field is required.'] }); } },
    { method: 'GET', path: '/api/v1/dup', auth: 'none', handler: async () => { throw conflict('Already there.'); } },
    { method: 'POST', path: '/o/token/', auth: 'none', handler: async (req) => json(200, { form: req.body }) },
  ],
});

async function send(method: string, url: string, headers: Record<string, string> = {}, body?: string, timeoutMs?: number) {
  const event = toEvent({ method, url, headers: { host: 'localhost:8000', ...headers }, ...(body !== undefined ? { body } : {}) });
  const out = fromResult(await invokeLambda(handler, event, 'test', timeoutMs));
  const text = out.body.toString();
  return { ...out, text, json: text ? JSON.parse(text) : undefined };
}

describe('shared HTTP layer', () => {
  it('answers a request that runs out of the function\'s time with a 503 OperationOutcome and Retry-After, before Lambda would cut it off', async () => {
    const res = await send('GET', '/FHIR/R5/slow', {}, undefined, 1300);
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe(String(RETRY_AFTER_SECONDS));
    expect(res.json).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'timeout' }] });
  });

  it('parses a JSON body and answers with a request id', async () => {
    stored = [];
    const res = await send('POST', '/FHIR/R5/Thing', { 'content-type': 'application/fhir+json' }, '{"a":1}');
    expect(res.status).toBe(201);
    expect(res.json).toEqual({ received: { a: 1 } });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(stored).toEqual([{ a: 1 }]);
  });

  it('answers malformed JSON with a 400 OperationOutcome and stores nothing', async () => {
    stored = [];
    const res = await send('POST', '/FHIR/R5/Thing', { 'content-type': 'application/json' }, '{"a":');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toContain('application/fhir+json');
    expect(res.json.resourceType).toBe('OperationOutcome');
    expect(res.json.issue[0]).toMatchObject({ severity: 'error', code: 'structure' });
    expect(res.json.issue[0].diagnostics).toMatch(/not valid JSON/);
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(stored).toEqual([]);
  });

  it('answers an unknown route with 404 and a wrong method with 405 and Allow', async () => {
    const missing = await send('GET', '/FHIR/R5/nothing/here/at/all');
    expect(missing.status).toBe(404);
    expect(missing.json.resourceType).toBe('OperationOutcome');
    expect(missing.headers['x-request-id']).toBeTruthy();
    const wrong = await send('DELETE', '/FHIR/R5/Thing');
    expect(wrong.status).toBe(405);
    expect(wrong.headers['allow']).toBe('POST');
    expect(wrong.json.issue[0].code).toBe('not-supported');
  });

  it('refuses an oversized body with 413 before the route runs', async () => {
    stored = [];
    process.env.MAX_BODY_BYTES = '64';
    resetConfig();
    try {
      const res = await send('POST', '/FHIR/R5/Thing', { 'content-type': 'application/json' }, JSON.stringify({ pad: 'x'.repeat(100) }));
      expect(res.status).toBe(413);
      expect(res.json.issue[0].code).toBe('too-long');
      expect(res.headers['x-request-id']).toBeTruthy();
      expect(stored).toEqual([]);
    } finally {
      delete process.env.MAX_BODY_BYTES;
      resetConfig();
    }
  });

  it('refuses a body of an unsupported media type with 415', async () => {
    stored = [];
    const res = await send('POST', '/FHIR/R5/Thing', { 'content-type': 'text/plain' }, 'hello');
    expect(res.status).toBe(415);
    expect(stored).toEqual([]);
  });

  it('accepts a GET that declares JSON but sends no body', async () => {
    const res = await send('GET', '/FHIR/R5/Thing/7?q=a&q=b', { 'content-type': 'application/json' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ id: '7', q: ['a', 'b'] });
  });

  it('hides internal errors behind a 500 that names the request id', async () => {
    const res = await send('GET', '/FHIR/R5/boom');
    expect(res.status).toBe(500);
    expect(res.text).not.toContain('secret internal detail');
    expect(res.json.issue[0].diagnostics).toContain(res.headers['x-request-id']);
  });

  it('renders /api/v1/ errors as field errors or {detail}', async () => {
    const fields = await send('POST', '/api/v1/things', { 'content-type': 'application/json' }, '{}');
    expect(fields.status).toBe(400);
    expect(fields.json).toEqual({ dataSource: ['This field is required.'] });
    const dup = await send('GET', '/api/v1/dup');
    expect(dup.status).toBe(409);
    expect(dup.json).toEqual({ detail: 'Already there.' });
    const missing = await send('GET', '/api/v1/none');
    expect(missing.status).toBe(404);
    expect(missing.json).toHaveProperty('detail');
  });

  it('parses form bodies and renders OAuth errors the RFC 6749 way', async () => {
    const ok = await send('POST', '/o/token/', { 'content-type': 'application/x-www-form-urlencoded' }, 'grant_type=x&code=y');
    expect(ok.json).toEqual({ form: { grant_type: 'x', code: 'y' } });
    const wrong = await send('GET', '/o/token/');
    expect(wrong.status).toBe(405);
    expect(wrong.json).toMatchObject({ error: 'invalid_request' });
  });
});
