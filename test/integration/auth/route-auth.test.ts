/**
 * A route's `auth` is enforced where it is dispatched: a route (or FHIR type) registered as needing
 * a caller never reaches its handler without one, and its handler receives the caller who asked;
 * a type whose access is chosen per request gets, for each request, exactly the access it chose.
 */
import { describe, expect, it } from 'vitest';
import { fromResult, toEvent } from '../../../local/api-gateway-event';
import { invokeLambda } from '../../../local/lambda-invoke';
import { registry as served, routes as fhirFamilyRoutes } from '../../../functions/fhir/handler';
import { routes as importRoutes } from '../../../functions/fhir-import/handler';
import { authenticator } from '../../../shared/auth/authenticate';
import type { Caller } from '../../../shared/auth/caller';
import { createRegistry } from '../../../shared/fhir/registry';
import { fhirRoutes } from '../../../shared/fhir/router';
import { corsRoutes } from '../../../shared/http/cors';
import { createHandler } from '../../../shared/http/handler';
import { json } from '../../../shared/http/response';
import { notFound } from '../../../shared/http/errors';
import { earlyRead, type Route } from '../../../shared/http/router';
import { makePatient, makePractitioner } from '../../support/directory';

/** Every caller a handler was reached with, by route. */
const reached: Array<{ route: string; caller: Caller | undefined }> = [];

const registry = createRegistry([
  {
    type: 'Thing',
    searchParams: () => [],
    auth: 'caller',
    handlers: {
      read: async (req, id) => {
        reached.push({ route: 'read Thing', caller: req.caller });
        return json(200, { id });
      },
    },
  },
  {
    // Open ids are read by anyone, `early` ids as an early read, the rest need a caller; `gone` is a 404 asking no one.
    type: 'Chosen',
    searchParams: () => [],
    auth: 'per-request',
    handlers: {
      read: (_req, id) => {
        if (id === 'gone') throw notFound('No such Chosen.');
        if (id === 'open') return { auth: 'none', handler: async () => json(200, { open: id }) };
        if (id === 'early') {
          return earlyRead({
            prepare: async (claimedPatientId) => ({ claimedPatientId }),
            handler: async (req, prepared) => {
              reached.push({ route: 'early Chosen', caller: req.caller });
              return json(200, { userId: req.caller.userId, prepared: await prepared });
            },
          });
        }
        return { auth: 'caller', handler: async (req) => json(200, { userId: req.caller.userId }) };
      },
    },
  },
]);

const routes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/mine',
    auth: 'caller',
    handler: async (req) => {
      reached.push({ route: 'mine', caller: req.caller });
      return json(200, { userId: req.caller.userId });
    },
  },
  { method: 'GET', path: '/api/v1/open', auth: 'none', handler: async () => json(200, { open: true }) },
  {
    method: 'GET',
    path: '/api/v1/practitioners-only',
    auth: 'practitioner',
    handler: async (req) => {
      reached.push({ route: 'practitioners-only', caller: req.caller });
      return json(200, { practitionerId: req.caller.practitionerId });
    },
  },
  ...corsRoutes('/o/whoami', {
    GET: {
      auth: 'caller',
      handler: async (req) => {
        reached.push({ route: 'whoami', caller: req.caller });
        return json(200, {});
      },
    },
  }),
  ...fhirRoutes(registry),
];

// @ts-expect-error A handler that needs a caller cannot be registered on an open route.
const unguarded: Route = { method: 'GET', path: '/api/v1/unguarded', auth: 'none', handler: async (req: { caller: Caller }) => json(200, req.caller) };
void unguarded;

const handler = createHandler({ family: 'test', routes, authenticator });

async function send(method: string, url: string, token?: string) {
  const headers: Record<string, string> = { host: 'localhost:8000', ...(token ? { authorization: `Bearer ${token}` } : {}) };
  const out = fromResult(await invokeLambda(handler, toEvent({ method, url, headers }), 'test'));
  const text = out.body.toString();
  return { status: out.status, headers: out.headers, json: text ? JSON.parse(text) : undefined };
}

describe('a route that needs a caller', () => {
  it('never reaches its handler without a valid token: 401 with the challenge instead', async () => {
    reached.length = 0;
    const missing = await send('GET', '/api/v1/mine');
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="cdx"');
    expect((await send('GET', '/api/v1/mine', 'not-a-token')).status).toBe(401);
    expect((await send('GET', '/FHIR/R5/Thing/1')).status).toBe(401);
    expect((await send('GET', '/o/whoami')).status).toBe(401);
    expect(reached).toEqual([]);
  });

  it('hands its handler the caller the token names', async () => {
    reached.length = 0;
    const doctor = await makePractitioner();
    const res = await send('GET', '/api/v1/mine', doctor.token);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ userId: doctor.id });
    expect((await send('GET', '/FHIR/R5/Thing/7', doctor.token)).json).toEqual({ id: '7' });
    expect(reached.map((r) => [r.route, r.caller?.userId])).toEqual([
      ['mine', doctor.id],
      ['read Thing', doctor.id],
    ]);
  });

  it("gives a refusal the route's own headers (CORS), so a browser app can read the 401", async () => {
    const res = await send('GET', '/o/whoami');
    expect(res.status).toBe(401);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toBe('GET, OPTIONS');
  });

  it('leaves open routes open, and answers an unknown FHIR type or a missing interaction before anyone is asked', async () => {
    reached.length = 0;
    expect((await send('GET', '/api/v1/open')).status).toBe(200);
    expect((await send('GET', '/FHIR/R5/metadata')).status).toBe(200);
    expect((await send('GET', '/FHIR/R5/Nothing/1')).status).toBe(404);
    const replace = await send('PUT', '/FHIR/R5/Thing/1');
    expect(replace.status).toBe(405);
    expect(replace.headers['allow']).toBe('GET');
    expect(reached).toEqual([]);
  });
});

describe('a route that needs a practitioner', () => {
  it('refuses a patient with a 403 before its handler runs, and hands a practitioner over typed as one', async () => {
    reached.length = 0;
    const patient = await makePatient({ login: true });
    const doctor = await makePractitioner();
    expect((await send('GET', '/api/v1/practitioners-only')).status).toBe(401);
    const refused = await send('GET', '/api/v1/practitioners-only', patient.token);
    expect([refused.status, refused.json]).toEqual([403, { detail: 'Only practitioners may do this.' }]);
    expect(reached).toEqual([]);
    expect((await send('GET', '/api/v1/practitioners-only', doctor.token)).json).toEqual({ practitionerId: doctor.id });
  });
});

describe('a FHIR type that chooses its access per request', () => {
  it('applies what each request chose: open, early read, caller, or a refusal made before anyone is asked', async () => {
    reached.length = 0;
    const patient = await makePatient({ login: true });
    expect((await send('GET', '/FHIR/R5/Chosen/open')).json).toEqual({ open: 'open' });
    expect((await send('GET', '/FHIR/R5/Chosen/gone', 'not-a-token')).status).toBe(404);
    expect((await send('GET', '/FHIR/R5/Chosen/other')).status).toBe(401);
    expect((await send('GET', '/FHIR/R5/Chosen/early')).status).toBe(401);
    expect(reached).toEqual([]);
    expect((await send('GET', '/FHIR/R5/Chosen/other', patient.token)).json).toEqual({ userId: patient.userId });
    // The prepared work is started with the patient the token claims, before the account is read.
    expect((await send('GET', '/FHIR/R5/Chosen/early', patient.token)).json).toEqual({ userId: patient.userId, prepared: { claimedPatientId: patient.id } });
    expect(reached.map((r) => r.caller?.userId)).toEqual([patient.userId]);
  });
});

describe('the served route tables', () => {
  it('open only discovery on the FHIR family, need a caller for every type but the two-store ones, Device and Observation (which pick their store first), and for both imports', () => {
    expect([...served.types.values()].filter((entry) => entry.auth !== 'caller').map((entry) => entry.type)).toEqual(['Device', 'Observation']);
    expect(importRoutes.map((route) => route.auth)).toEqual(['caller', 'caller']);
    expect(fhirFamilyRoutes.filter((route) => route.auth === 'none').map((route) => `${route.method} ${route.path}`).sort()).toEqual(
      ['/FHIR/R5', '/fhir/r5'].flatMap((base) => [`GET ${base}/.well-known/smart-configuration`, `GET ${base}/metadata`, `OPTIONS ${base}/.well-known/smart-configuration`]).sort(),
    );
  });
});
