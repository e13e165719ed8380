/**
 * Bearer token -> verified claims (no database call) -> the user's record (one strongly consistent
 * GetItem, so a deleted, deactivated or logged-out account is refused at once) -> a `Caller`.
 */
import { getUser } from '../directory/users';
import type { Id, User } from '../directory/model';
import { forbidden, unauthorized } from '../http/errors';
import type { Authenticator, CallerNeeds, HttpRequest } from '../http/request';
import type { AuditTrail } from '../telemetry/audit';
import { accountCaller } from './account-caller';
import type { Caller, PatientCaller } from './caller';
import { apiKeyGrantId, resourceOfAudience, resourceUri, scopesCover, withdrawal } from './claims';
import { verifyAccessToken, type AccessTokenClaims } from './tokens';

/** RFC 6750: a request without credentials gets a challenge without an error code. */
const missing = () =>
  unauthorized('Authentication credentials were not provided.', { headers: { 'WWW-Authenticate': 'Bearer realm="cdx"' } });

const refused = () => unauthorized('The access token is invalid or expired.');

/** The token of an `Authorization: Bearer <token>` header, if there is one. */
export function bearerToken(headers: Readonly<Record<string, string>>): string | undefined {
  const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(headers['authorization'] ?? '');
  return match?.[1];
}

/**
 * Whether the token, or the grant it was issued under, was revoked (RFC 7009, or a reused code or
 * refresh token), or the person withdrew the client's approval after it was issued.
 */
export function isRevoked(user: Pick<User, 'revocations'>, claims: Pick<AccessTokenClaims, 'jti' | 'sid' | 'client_id' | 'aud' | 'iat'>): boolean {
  const revoked = user.revocations;
  if (!revoked) return false;
  if (Object.hasOwn(revoked, `jti:${claims.jti}`) || (claims.sid !== undefined && Object.hasOwn(revoked, `sid:${claims.sid}`))) return true;
  const entry = claims.client_id === undefined ? undefined : withdrawal.entry(claims.client_id, resourceOfAudience(claims.aud) ?? 'service');
  return entry !== undefined && Object.hasOwn(revoked, entry) && claims.iat <= withdrawal.withdrawnAt(revoked[entry]!);
}

/** The caller a user acts as under a token's claims; `undefined` when the account may not act. */
export function callerOf(user: User, claims: AccessTokenClaims): Caller | undefined {
  if (user.kind !== claims.kind) return undefined;
  if (user.tokensNotBefore !== undefined && claims.iat < user.tokensNotBefore) return undefined;
  if (isRevoked(user, claims)) return undefined;
  if (user.kind === 'patient' && claims.patient !== undefined && claims.patient !== String(user.patientId)) return undefined;
  const viaApiKey = claims.sid !== undefined && claims.sid === apiKeyGrantId(claims.client_id ?? '');
  return accountCaller(user, {
    scopes: claims.scope ? claims.scope.split(' ') : [],
    ...(claims.client_id ? { clientId: claims.client_id } : {}),
    ...(viaApiKey ? { viaApiKey } : {}),
  });
}

/**
 * The caller, if its token holds what the route needs: 403 for a backend service's token aimed at
 * a route that takes none (the management API), or at a FHIR resource type its system scopes do
 * not name.
 */
function withinReach(caller: Caller, needs: CallerNeeds): Caller {
  if (caller.kind !== 'practitioner' || !caller.system) return caller;
  if (needs.backendServices === false) {
    throw forbidden("A backend service's token reads the FHIR API only; the management API takes a practitioner's sign-in or API key.");
  }
  const type = needs.fhirType;
  const { types } = caller.system;
  if (type !== undefined && !scopesCover(types, type)) throw forbidden(`The token's scopes do not cover ${type}: ask for system/${type}.rs.`);
  return caller;
}

async function confirmedCaller(claims: AccessTokenClaims): Promise<Caller> {
  const user = await getUser(Number(claims.sub));
  const caller = user && callerOf(user, claims);
  if (!caller) throw refused();
  return caller;
}

/** The caller behind an access token; 401 for a missing, invalid, expired or orphaned token. */
export async function callerFromToken(token: string): Promise<Caller> {
  return confirmedCaller(await verifyAccessToken(token));
}

/**
 * The claims, if the token was issued for the resource the route is (RFC 8707): an `/mcp` token
 * does not reach the FHIR or management APIs, nor theirs `/mcp`, so a token handed to an assistant
 * opens nothing else. A 401 `invalid_token`, as RFC 6750 answers a token for another audience.
 */
function forResource(claims: AccessTokenClaims, needs: CallerNeeds): AccessTokenClaims {
  const wanted = needs.resource ?? 'service';
  if (wanted === 'any' || resourceOfAudience(claims.aud) === wanted) return claims;
  throw unauthorized(`The access token was not issued for this resource: ask for one with resource=${resourceUri(wanted)}.`);
}

async function requestClaims(req: Pick<HttpRequest, 'headers'>, needs: CallerNeeds): Promise<AccessTokenClaims> {
  const token = bearerToken(req.headers);
  if (!token) {
    if (req.headers['authorization']) throw refused();
    throw missing();
  }
  return forResource(await verifyAccessToken(token), needs);
}

/** What authentication needs of a request; its audit trail, when it has one, learns the outcome. */
type Credentials = Pick<HttpRequest, 'headers'> & { readonly audit?: AuditTrail };

/** Records who the caller turned out to be (or that no one was), then passes the outcome on. */
async function audited(req: Credentials, caller: Promise<Caller>): Promise<Caller> {
  try {
    const confirmed = await caller;
    req.audit?.identified(confirmed);
    return confirmed;
  } catch (error) {
    req.audit?.refused();
    throw error;
  }
}

/**
 * The caller of a request (`Authorization: Bearer <access token>`); 401 otherwise, 403 when the
 * token does not hold what the route needs.
 */
export async function authenticate(req: Credentials, needs: CallerNeeds = {}): Promise<Caller> {
  return withinReach(await audited(req, requestClaims(req, needs).then(confirmedCaller)), needs);
}

/** The patient caller a signed patient token names, before the account is looked up. */
function claimedPatient(claims: AccessTokenClaims): PatientCaller | undefined {
  if (claims.kind !== 'patient' || claims.patient === undefined) return undefined;
  const client = claims.client_id ? { clientId: claims.client_id } : {};
  const scopes = claims.scope ? claims.scope.split(' ') : [];
  return { kind: 'patient', userId: Number(claims.sub), patientId: Number(claims.patient), scopes, ...client };
}

const sameCaller = (a: Caller, b: PatientCaller) =>
  a.kind === 'patient' && a.userId === b.userId && a.patientId === b.patientId && a.scopes.join(' ') === b.scopes.join(' ');

/**
 * Runs a READ for the request's caller. A patient's signed token names their patient, so the read
 * starts under that claim while the account is looked up, and the two round trips overlap. Nothing
 * leaves before the account is confirmed: a refused account is a 401 and its read is discarded, and
 * an account that no longer matches the claim gets the read run again as itself. Only for work
 * without side effects: it may run for a caller who is then refused.
 *
 * `prepare`, when given, starts caller-free work (loading tables, reading a page the request names)
 * as soon as the token's signature holds, for any caller; `read` receives its promise.
 */
export async function authorizedRead<T, P = never>(
  req: Credentials,
  needs: CallerNeeds,
  read: (caller: Caller, prepared: Promise<P> | undefined) => Promise<T>,
  prepare?: (claimedPatientId: Id | undefined) => Promise<P>,
): Promise<T> {
  let claims: AccessTokenClaims;
  try {
    claims = await requestClaims(req, needs);
  } catch (error) {
    req.audit?.refused();
    throw error;
  }
  const claimed = claimedPatient(claims);
  const prepared = prepare?.(claimed?.patientId);
  prepared?.catch(() => undefined); // consumed by `read`, or dropped with a refused caller
  if (!claimed) return read(withinReach(await audited(req, confirmedCaller(claims)), needs), prepared);
  const [confirmed, early] = await Promise.allSettled([audited(req, confirmedCaller(claims)), read(claimed, prepared)]);
  if (confirmed.status === 'rejected') throw confirmed.reason;
  if (!sameCaller(confirmed.value, claimed)) return read(confirmed.value, prepared);
  if (early.status === 'rejected') throw early.reason;
  return early.value;
}

/**
 * How the families find their callers (`createHandler({ authenticator })`): shared/http/dispatch.ts
 * calls it once a request, from the route's declared access. Nothing else authenticates a request
 * (eslint.config.mjs refuses the import elsewhere; test/security/authentication-once.test.ts counts).
 */
export const authenticator: Authenticator = { authenticate, authorizedRead };
