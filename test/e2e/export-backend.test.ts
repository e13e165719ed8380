/**
 * A research pipeline as SMART Backend Services describe it, over HTTP against the local gateway,
 * npm start's stores and its export worker: a practitioner registers a backend client with its
 * public keys; the client signs in with a private key (RS384, and ES384) and exports what the
 * practitioner sees, polls, and downloads every file through its 307. Its token's scopes bound
 * the export's types; its jobs are its own. A replayed `jti`, an expired or foreign-signed
 * assertion and a wrong `aud` get no token, so no export.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../local/gateway';
import { loadWorker } from '../../local/handlers';
import { startLocalExportWorker, type LocalExportWorker } from '../../local/export-worker';
import { resetConfig } from '../../shared/config';
import { startTestGateway } from '../support/gateway';
import { backendKey, signAssertion, type BackendKey } from '../support/oauth';
import { batchOf, observation, observationWorld, type ObservationWorld } from '../support/observations';
import { bearer, fileLines, pollStatus, type Manifest } from '../support/export';

let gateway: Gateway;
let worker: LocalExportWorker;
let world: ObservationWorld;
let clientId: string;
let rs: BackendKey;
let es: BackendKey;
const READINGS = 12;

const tokenEndpoint = () => `${gateway.url}/o/token/`;

beforeAll(async () => {
  process.env.EXPORT_RETRY_AFTER_SECONDS = '1';
  resetConfig();
  gateway = await startTestGateway({ asSite: true });
  worker = startLocalExportWorker(await loadWorker());
  world = await observationWorld({ codes: ['omh:heart-rate:2.0'] });
  const readings = Array.from({ length: READINGS }, (_, i) => observation(world, { at: Date.UTC(2025, 8, 1, i), form: 'date_time' }));
  const uploaded = await fetch(`${gateway.url}/FHIR/R5/`, { method: 'POST', headers: bearer(world.patient.token, { 'content-type': 'application/fhir+json' }), body: JSON.stringify(batchOf(readings)) });
  expect(uploaded.status).toBe(200);
  [rs, es] = await Promise.all([backendKey('RS384'), backendKey('ES384')]);
  const registered = await fetch(`${gateway.url}/api/v1/practitioner_clients`, {
    method: 'POST',
    headers: bearer(world.practitioner.token, { 'content-type': 'application/json' }),
    body: JSON.stringify({ name: 'research pipeline', jwks: { keys: [rs.jwk, es.jwk] } }),
  });
  expect(registered.status).toBe(201);
  clientId = ((await registered.json()) as { clientId: string }).clientId;
});
afterAll(async () => {
  await worker.stop();
  await gateway.close();
  delete process.env.EXPORT_RETRY_AFTER_SECONDS;
  resetConfig();
});

/** The token endpoint's answer to a client assertion (client_credentials, private_key_jwt). */
async function tokenFor(assertion: string, scope = 'system/*.rs'): Promise<{ status: number; body: Record<string, string> }> {
  const res = await fetch(tokenEndpoint(), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: assertion, scope }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

const signed = (key: BackendKey, options: Parameters<typeof signAssertion>[2] = {}) => signAssertion(key, clientId, { ...options, claims: { aud: tokenEndpoint(), ...options.claims } });

async function backendToken(key: BackendKey, scope = 'system/*.rs'): Promise<string> {
  const got = await tokenFor(await signed(key), scope);
  expect(got.status, JSON.stringify(got.body)).toBe(200);
  return got.body.access_token!;
}

/** Kick-off, polling that honours Retry-After, the manifest. */
async function exported(token: string, query: string): Promise<{ manifest: Manifest; status: string }> {
  const kicked = await fetch(`${gateway.url}/FHIR/R5/$export${query}`, { headers: bearer(token, { prefer: 'respond-async', accept: 'application/fhir+json' }) });
  expect(kicked.status, await kicked.clone().text()).toBe(202);
  const status = kicked.headers.get('content-location')!;
  const done = await pollStatus(status, token);
  expect(done.status).toBe(200);
  return { manifest: (await done.json()) as Manifest, status };
}

describe('a backend client', () => {
  it.each(['RS384', 'ES384'] as const)('signs in with its %s key and exports what its practitioner sees, files through the 307', async (alg) => {
    const token = await backendToken(alg === 'RS384' ? rs : es);
    const { manifest } = await exported(token, '?_type=Patient,Observation');
    expect((await fileLines(manifest, 'Patient', token)).map((p) => p.id)).toEqual([String(world.patient.id)]);
    const readings = await fileLines(manifest, 'Observation', token);
    expect(readings).toHaveLength(READINGS);
    const searched = await fetch(`${gateway.url}/FHIR/R5/Observation?_summary=count`, { headers: bearer(token) });
    expect(((await searched.json()) as { total: number }).total).toBe(readings.length);
  });

  it("exports only the types its scopes name, and owns its jobs: the practitioner's own token gets a 404", async () => {
    const token = await backendToken(es, 'system/Observation.rs');
    const { manifest, status } = await exported(token, '');
    expect([...new Set(manifest.output.map((f) => f.type))]).toEqual(['Observation']);
    const outside = await fetch(`${gateway.url}/FHIR/R5/$export?_type=Patient`, { headers: bearer(token, { prefer: 'respond-async' }) });
    expect(outside.status).toBe(403);
    expect(((await outside.json()) as { resourceType: string }).resourceType).toBe('OperationOutcome');
    // The same client signed in again (another key) owns it; the practitioner's sign-in does not.
    expect((await fetch(status, { headers: bearer(await backendToken(rs)) })).status).toBe(200);
    expect((await fetch(status, { headers: bearer(world.practitioner.token) })).status).toBe(404);
    expect((await fetch(manifest.output[0]!.url, { headers: bearer(world.practitioner.token), redirect: 'manual' })).status).toBe(404);
  });

  it('gets no token, so no export, for a replayed jti, an expired or foreign-signed assertion, or a wrong aud', async () => {
    const once = await signed(es);
    expect((await tokenFor(once)).status).toBe(200);
    const replayed = await tokenFor(once);
    const expired = await tokenFor(await signed(es, { claims: { exp: Math.floor(Date.now() / 1000) - 60 } }));
    const stranger = await backendKey('ES384', es.kid);
    const foreign = await tokenFor(await signed(stranger));
    const wrongAud = await tokenFor(await signAssertion(es, clientId, { claims: { aud: 'https://elsewhere.example/o/token/' } }));
    for (const refused of [replayed, expired, foreign, wrongAud]) {
      expect(refused.status, JSON.stringify(refused.body)).toBe(401);
      expect(refused.body.error).toBe('invalid_client');
      expect(refused.body.access_token).toBeUndefined();
    }
    expect((await fetch(`${gateway.url}/FHIR/R5/$export`, { headers: { prefer: 'respond-async' } })).status).toBe(401);
  });
});
