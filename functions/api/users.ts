/** `/api/v1/users/*`: the caller's own account, and the portal's identifier call. */
import { fieldErrorsOf } from '../../shared/api/body';
import { identifierSystem, identifierValue, strict } from '../../shared/api/fields';
import { snakeCaseKeys } from '../../shared/api/names';
import { authed } from '../../shared/api/route';
import { fieldErrors } from '../../shared/http/errors';
import { json } from '../../shared/http/response';
import type { Route } from '../../shared/http/router';
import { IDENTIFIER_REQUIRED, notAPatient, portalError, storePortalIdentifier } from '../../shared/management/portal';
import { ownOrganizations, profileOf } from '../../shared/management/profile';

const portalIdentifier = strict({ system: identifierSystem(), value: identifierValue() });

/** The identifier body: missing fields answer the portal's own `{error}` body; other problems are field errors. */
function parseIdentifier(body: unknown) {
  const input = snakeCaseKeys(body ?? {}) as Record<string, unknown>;
  if (typeof input !== 'object' || input === null || Array.isArray(input) || !input.system || !input.value) {
    throw portalError(400, IDENTIFIER_REQUIRED);
  }
  const result = portalIdentifier.safeParse(input);
  if (!result.success) throw fieldErrors(fieldErrorsOf(result.error.issues, input));
  return result.data;
}

export const userRoutes: Route[] = [
  authed('GET', '/api/v1/users/profile', async (caller) => json(200, await profileOf(caller))),
  authed('GET', '/api/v1/users/organizations', async (caller) => json(200, await ownOrganizations(caller))),
  authed('POST', '/api/v1/portal/identifier', {
    forPatients: async (caller, req) => json(200, await storePortalIdentifier(caller, parseIdentifier(req.body))),
    refusal: notAPatient,
  }),
];
