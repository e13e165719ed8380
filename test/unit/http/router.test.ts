import { describe, expect, it } from 'vitest';
import { Router, type RouteHandler } from '../../../shared/http/router';
import { json } from '../../../shared/http/response';

const h = (name: string): RouteHandler => async () => json(200, { name });

describe('Router', () => {
  const router = new Router([
    { method: 'GET', path: '/FHIR/R5/metadata', auth: 'none', handler: h('metadata') },
    { method: 'GET', path: '/FHIR/R5/{type}', auth: 'none', handler: h('search') },
    { method: 'POST', path: '/FHIR/R5/{type}', auth: 'none', handler: h('create') },
    { method: 'GET', path: '/FHIR/R5/{type}/{id}', auth: 'none', handler: h('read') },
    { method: 'POST', path: '/FHIR/R5/{type}/_search', auth: 'none', handler: h('search-post') },
    { method: 'GET', path: '/files/{rest+}', auth: 'none', handler: h('files') },
  ]);

  it('prefers literal segments over parameters', () => {
    const m = router.match('GET', '/FHIR/R5/metadata');
    expect(m.kind === 'found' && m.route.path).toBe('/FHIR/R5/metadata');
  });

  it('answers 405 with the allowed methods of the most specific matching path', () => {
    expect(router.match('POST', '/FHIR/R5/metadata')).toEqual({ kind: 'method-not-allowed', allowed: ['GET'] });
    expect(router.match('DELETE', '/FHIR/R5/Observation/_search')).toEqual({ kind: 'method-not-allowed', allowed: ['POST'] });
  });

  it('extracts and decodes parameters, ignoring a trailing slash', () => {
    const m = router.match('GET', '/FHIR/R5/Patient/a%20b/');
    expect(m).toMatchObject({ kind: 'found', params: { type: 'Patient', id: 'a b' } });
  });

  it('matches the rest of the path with a greedy parameter', () => {
    expect(router.match('GET', '/files/a/b/c')).toMatchObject({ kind: 'found', params: { rest: 'a/b/c' } });
    expect(router.match('GET', '/files')).toEqual({ kind: 'not-found' });
  });

  it('is 404 for paths no route fits', () => {
    expect(router.match('GET', '/FHIR/R5/Patient/1/extra/more')).toEqual({ kind: 'not-found' });
    expect(router.match('GET', '/nothing')).toEqual({ kind: 'not-found' });
  });

  it('answers the headers of a path\'s route for answers made before it, by method, else of the path\'s routes', () => {
    const byOrigin = (req: { headers: Record<string, string> }): Record<string, string> => (req.headers['origin'] === 'https://a.example' ? { 'Access-Control-Allow-Origin': 'https://a.example', Vary: 'Origin' } : { Vary: 'Origin' });
    const cors = new Router([
      { method: 'POST', path: '/mcp', auth: 'none', handler: h('mcp'), headers: byOrigin },
      { method: 'OPTIONS', path: '/mcp', auth: 'none', handler: h('preflight'), headers: byOrigin },
      { method: 'POST', path: '/o/token/', auth: 'none', handler: h('token'), headers: { 'Access-Control-Allow-Origin': '*' } },
      { method: 'GET', path: '/health', auth: 'none', handler: h('health') },
    ]);
    expect(cors.headersFor('POST', '/mcp', { headers: { origin: 'https://a.example' } })).toEqual({ 'Access-Control-Allow-Origin': 'https://a.example', Vary: 'Origin' });
    expect(cors.headersFor('POST', '/mcp/', { headers: { origin: 'https://b.example' } })).toEqual({ Vary: 'Origin' });
    // A method the path lacks (its 405) takes the path's routes' headers.
    expect(cors.headersFor('GET', '/mcp', { headers: { origin: 'https://a.example' } })).toMatchObject({ 'Access-Control-Allow-Origin': 'https://a.example' });
    expect(cors.headersFor('POST', '/o/token', { headers: {} })).toEqual({ 'Access-Control-Allow-Origin': '*' });
    expect(cors.headersFor('GET', '/health', { headers: {} })).toBeUndefined();
    expect(cors.headersFor('GET', '/nothing', { headers: {} })).toBeUndefined();
  });
});
