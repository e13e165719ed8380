/**
 * A backend client registered with a `jwks_uri`: the service fetches the key set from a loopback
 * server this file runs (allowed only by `JWKS_URI_LOOPBACK=1`), keeps it as its Cache-Control
 * says, fetches again for a key id it lacks (a rotation), and refuses every URL it must not or
 * cannot read (redirects, oversized, slow, not JSON, private addresses) with a 401 that says why.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JWK } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '../../../shared/config';
import { resetClock, useClock } from '../../../shared/oauth/clock';
import { forgetFetchedKeySets, GREATEST_WAIT_MS, MAX_BYTES, REFETCH_AFTER_MS } from '../../../shared/oauth/jwks-uri';
import { makeOrganization, makePractitioner, type WithToken } from '../../support/directory';
import { assertionGrant, backendKey, registerBackendClient, signAssertion, type BackendKey } from '../../support/oauth';
import type { Practitioner } from '../../../shared/directory/model';
import { directoryRows } from '../../support/store';

/** What the fixture serves at /jwks, and how often it was asked. */
const served = { keys: [] as JWK[], cacheControl: undefined as string | undefined, hits: 0 };
let server: Server;
let base: string;
let doctor: Practitioner & WithToken;

beforeAll(async () => {
  process.env.JWKS_URI_LOOPBACK = '1';
  resetConfig();
  server = createServer((req, res) => {
    switch (req.url) {
      case '/jwks':
        served.hits += 1;
        res.writeHead(200, { 'content-type': 'application/json', ...(served.cacheControl ? { 'cache-control': served.cacheControl } : {}) });
        return res.end(JSON.stringify({ keys: served.keys }));
      case '/redirect':
        res.writeHead(302, { location: '/jwks' });
        return res.end();
      case '/big':
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ keys: served.keys, padding: 'x'.repeat(MAX_BYTES) }));
      case '/not-json':
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html>keys</html>');
      case '/slow':
        return void setTimeout(() => res.end('{}'), GREATEST_WAIT_MS + 2000).unref();
      default:
        res.writeHead(404);
        return res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  doctor = await makePractitioner({ organizations: [await makeOrganization()] });
});

afterAll(async () => {
  delete process.env.JWKS_URI_LOOPBACK;
  resetConfig();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

afterEach(() => {
  resetClock();
  forgetFetchedKeySets();
  served.cacheControl = undefined;
  served.hits = 0;
});

async function clientAt(path: string): Promise<string> {
  return (await registerBackendClient(doctor.token, { jwks_uri: `${base}${path}` })).clientId;
}

const grant = async (key: BackendKey, clientId: string, header: Record<string, unknown> = {}) => assertionGrant(await signAssertion(key, clientId, { header }));

describe('a JWK Set URL', () => {
  it('signs in with keys fetched once, kept while Cache-Control allows', async () => {
    const [es, rs] = await Promise.all([backendKey('ES384'), backendKey('RS384')]);
    served.keys = [es.jwk, rs.jwk, { kty: 'oct', k: 'c2VjcmV0', kid: 'skipped' }];
    const clientId = await clientAt('/jwks');
    for (const key of [es, rs, es]) expect((await grant(key, clientId)).status).toBe(200);
    expect(served.hits).toBe(1);
    expect((await grant(es, clientId, { jku: `${base}/jwks` })).status).toBe(200);
    const other = await grant(es, clientId, { jku: `${base}/other` });
    expect([other.status, other.json.error_description]).toEqual([401, expect.stringMatching(/jku that is not the JWK Set URL registered/)]);

    served.cacheControl = 'no-store';
    forgetFetchedKeySets();
    for (const key of [es, rs]) expect((await grant(key, clientId)).status).toBe(200);
    expect(served.hits).toBe(3);
  });

  it('fetches again for a key id it lacks (a rotation), at most every half minute', async () => {
    const [old, next] = await Promise.all([backendKey('ES384'), backendKey('ES384')]);
    served.keys = [old.jwk];
    const clientId = await clientAt('/jwks');
    expect((await grant(old, clientId)).status).toBe(200);
    served.keys = [old.jwk, next.jwk];
    const soon = await grant(next, clientId);
    expect([soon.status, soon.json.error_description]).toEqual([401, expect.stringMatching(/no registered key .* has the kid/)]);
    expect(served.hits).toBe(1);
    const later = Date.now() + REFETCH_AFTER_MS + 1000;
    useClock(() => later);
    expect((await assertionGrant(await signAssertion(next, clientId, { claims: { exp: Math.floor(later / 1000) + 120 } }))).status).toBe(200);
    expect(served.hits).toBe(2);
  });

  it('refuses a URL it cannot read, saying why, and changes nothing', async () => {
    const key = await backendKey('ES384');
    served.keys = [key.jwk];
    const cases: Array<[string, RegExp]> = [
      ['/redirect', /answered 302 \(redirects are not followed\)/],
      ['/missing', /answered 404/],
      ['/big', new RegExp(`larger than ${MAX_BYTES} bytes`)],
      ['/not-json', /not JSON/],
      ['/slow', /no answer within/],
    ];
    const clients = new Map<string, string>();
    for (const [path] of cases) clients.set(path, await clientAt(path));
    const before = await directoryRows({ withoutSignIns: true });
    for (const [path, why] of cases) {
      const res = await grant(key, clients.get(path)!);
      expect([res.status, res.json.error], path).toEqual([401, 'invalid_client']);
      expect(res.json.error_description, path).toMatch(/JWK Set URL could not be read/);
      expect(res.json.error_description, path).toMatch(why);
    }
    expect(await directoryRows({ withoutSignIns: true })).toEqual(before);
  });

  it('without the loopback setting: plain http refused, and an https name resolving to a private address refused', async () => {
    const key = await backendKey('ES384');
    served.keys = [key.jwk];
    const httpClient = await clientAt('/jwks');
    const named = (await registerBackendClient(doctor.token, { jwks_uri: `https://localhost:${new URL(base).port}/jwks` })).clientId;
    delete process.env.JWKS_URI_LOOPBACK;
    resetConfig();
    try {
      const http = await grant(key, httpClient);
      expect([http.status, http.json.error_description]).toEqual([401, expect.stringMatching(/must be an https URL/)]);
      const https = await grant(key, named);
      expect([https.status, https.json.error_description]).toEqual([401, expect.stringMatching(/localhost resolves to an address that is not public/)]);
      expect(served.hits).toBe(0);
    } finally {
      process.env.JWKS_URI_LOOPBACK = '1';
      resetConfig();
    }
  });
});
