/**
 * `/api/v1/practitioner_clients`: a practitioner's own clients of the client_credentials grant: API
 * keys (a secret), and backend clients (SMART Backend Services: a public key set, `jwks` or `jwks_uri`).
 */
import * as z from 'zod/mini';
import { parseId } from '../../shared/directory/ids';
import { forbidden, notFound } from '../../shared/http/errors';
import { json, noContent } from '../../shared/http/response';
import type { Route } from '../../shared/http/router';
import { createApiKey, createBackendClient, deleteApiKey, listApiKeys } from '../../shared/oauth/api-keys';
import { parseBody } from '../../shared/api/body';
import { url } from '../../shared/api/fields';
import { listOf } from '../../shared/api/list';
import { authed } from '../../shared/api/route';

const CreateClient = z.strictObject({
  name: z.optional(z.string().check(z.trim(), z.minLength(1), z.maxLength(200), z.regex(/^[^\u0000-\u001f\u007f]*$/, 'Control characters are not allowed.'))),
  /** RFC 7591 client metadata of a backend client: its JWK Set (read by `readClientJwks`), or its URL. */
  jwks: z.optional(z.unknown()),
  jwks_uri: z.optional(url()),
});

export function practitionerClientRoutes(): Route[] {
  return [
    authed('GET', '/api/v1/practitioner_clients', { forPractitioners: async (caller, req) => json(200, listOf(req, await listApiKeys(caller.userId))) }),
    authed('POST', '/api/v1/practitioner_clients', { forPractitioners: async (caller, req) => {
      // A key that could mint keys would outlive its own deletion: new keys need a signed-in practitioner.
      if (caller.viaApiKey) throw forbidden('An API key cannot create API keys: sign in to create one.');
      const body = parseBody(CreateClient, req.body);
      const created =
        body.jwks === undefined && body.jwks_uri === undefined
          ? await createApiKey(caller.userId, body.name)
          : await createBackendClient(caller.userId, { name: body.name, jwks: body.jwks, jwksUri: body.jwks_uri });
      return json(201, created, { 'Cache-Control': 'no-store' });
    } }),
    authed('DELETE', '/api/v1/practitioner_clients/{id}', { forPractitioners: async (caller, req) => {
      const id = parseId(req.params.id);
      if (id === undefined) throw notFound(`API key ${req.params.id} not found.`);
      await deleteApiKey(caller.userId, id);
      return noContent();
    } }),
  ];
}
