/**
 * Access tokens: JWTs in the RFC 9068 profile (`typ: at+jwt`), ES256, signed by the current key of
 * the key set (`kid` = its JWK thumbprint). Verification checks signature, algorithm (ES256 only:
 * `none` and HMAC are refused before any key is looked at), type, issuer, audience and lifetime,
 * all without a database call; `authenticate.ts` then looks the user up.
 */
import { errors, jwtVerify, type JWTHeaderParameters, type JWTPayload } from 'jose';
import { randomUUID } from 'node:crypto';
import { BoundedMap } from '../bounded-map';
import { config } from '../config';
import { unauthorized } from '../http/errors';
import type { Id, UserKind } from '../directory/model';
import { audienceOf, audiences, resourceOfAudience, type TokenResource } from './claims';
import { ACCESS_TOKEN_SECONDS, CLOCK_TOLERANCE_SECONDS } from './lifetimes';
import { TOKEN_ALG } from './signing-key-provider';
import { signingKeys } from './signing-keys';

export const ACCESS_TOKEN_TYPE = 'at+jwt';

/** Issuer of every token of this service: its public origin. */
export function tokenIssuer(): string {
  return config().siteUrl;
}

/** Audience of access tokens for the service's APIs (FHIR, import and `/api/v1/`): its public origin. */
export function tokenAudience(): string {
  return audienceOf('service');
}

export interface AccessTokenRequest {
  userId: Id;
  kind: UserKind;
  /** Granted scopes (space-separated text or a list). */
  scope?: string | readonly string[];
  /** The OAuth client the token was issued to. */
  clientId?: string;
  /** Shorter lifetimes only (e.g. tests); capped at ACCESS_TOKEN_SECONDS. */
  lifetimeSeconds?: number;
  /** The grant (sign-in) the token belongs to: revoking the grant revokes the token (`sid` claim). */
  grantId?: string;
  /** A patient user's patient record (`patient` claim, as SMART names it). */
  patientId?: Id;
  /** The resource the token is for (RFC 8707), its audience; the service's APIs when not given. */
  resource?: TokenResource;
}

export interface AccessTokenClaims {
  iss: string;
  aud: string;
  /** The user id, as text. */
  sub: string;
  iat: number;
  exp: number;
  jti: string;
  scope: string;
  /** The kind of user the token was issued to. */
  kind: UserKind;
  client_id?: string;
  /** The grant the token was issued under (see `AccessTokenRequest.grantId`). */
  sid?: string;
  /**
   * A patient token's patient id, as text. Signed, so a read may start under it while the account
   * is being looked up (`authorizedRead`); the account must then carry this very patient.
   */
  patient?: string;
}

export interface IssuedAccessToken {
  accessToken: string;
  tokenType: 'Bearer';
  /** Seconds until expiry (the token response's `expires_in`). */
  expiresIn: number;
  claims: AccessTokenClaims;
}

function scopeText(scope: AccessTokenRequest['scope']): string {
  const list = typeof scope === 'string' ? scope.split(/\s+/) : [...(scope ?? [])];
  return [...new Set(list.filter(Boolean))].join(' ');
}

export async function issueAccessToken(request: AccessTokenRequest): Promise<IssuedAccessToken> {
  const lifetime = Math.max(1, Math.min(request.lifetimeSeconds ?? ACCESS_TOKEN_SECONDS, ACCESS_TOKEN_SECONDS));
  const iat = Math.floor(Date.now() / 1000);
  const claims: AccessTokenClaims = {
    iss: tokenIssuer(),
    aud: audienceOf(request.resource ?? 'service'),
    sub: String(request.userId),
    iat,
    exp: iat + lifetime,
    jti: randomUUID(),
    scope: scopeText(request.scope),
    kind: request.kind,
    ...(request.clientId ? { client_id: request.clientId } : {}),
    ...(request.grantId ? { sid: request.grantId } : {}),
    ...(request.kind === 'patient' && request.patientId !== undefined ? { patient: String(request.patientId) } : {}),
  };
  const provider = await signingKeys();
  return { accessToken: await provider.sign(claims as unknown as JWTPayload, ACCESS_TOKEN_TYPE), tokenType: 'Bearer', expiresIn: lifetime, claims };
}

const invalidToken = (cause?: unknown) => unauthorized('The access token is invalid or expired.', cause === undefined ? {} : { cause });

async function keyFor(header: JWTHeaderParameters): Promise<CryptoKey> {
  if (typeof header.kid !== 'string') throw new errors.JWKSNoMatchingKey();
  const found = await (await signingKeys()).verificationKey(header.kid);
  if (!found) throw new errors.JWKSNoMatchingKey();
  return found.key;
}

const USER_ID = /^[1-9][0-9]{0,14}$/;

/**
 * Tokens this process has already verified, so a client's next requests skip the signature check
 * (ES256 through WebCrypto costs ~0.2 ms; a hit costs microseconds). A hit is only taken for the
 * exact token text, still unexpired, still of this issuer and audience, and still signed by a key
 * of the current key set; anything else is verified in full. Bounded: the least recently kept go first (`BoundedMap`).
 */
const VERIFIED_MAX = 5000;
const verified = new BoundedMap<string, { claims: AccessTokenClaims; kid: string }>(VERIFIED_MAX);

async function fromCache(token: string): Promise<AccessTokenClaims | undefined> {
  const hit = verified.get(token);
  if (!hit) return undefined;
  const { claims } = hit;
  const fresh = claims.exp + CLOCK_TOLERANCE_SECONDS > Date.now() / 1000;
  const same = claims.iss === tokenIssuer() && resourceOfAudience(claims.aud) !== undefined;
  if (fresh && same && (await (await signingKeys()).verificationKey(hit.kid))) return { ...claims };
  verified.delete(token);
  return undefined;
}

/** The claims of a valid access token of this service; 401 (with a Bearer challenge) for anything else. */
export async function verifyAccessToken(token: string): Promise<AccessTokenClaims> {
  const cached = await fromCache(token);
  if (cached) return cached;
  let payload: JWTPayload;
  let kid: string;
  try {
    const result = await jwtVerify(token, keyFor, {
      algorithms: [TOKEN_ALG],
      typ: ACCESS_TOKEN_TYPE,
      issuer: tokenIssuer(),
      // Any resource of this service: which one a request needs is the authenticator's to check.
      audience: audiences(),
      requiredClaims: ['sub', 'iat', 'exp', 'jti'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    });
    payload = result.payload;
    kid = result.protectedHeader.kid!;
  } catch (e) {
    throw invalidToken(e);
  }
  const claims = payload as unknown as AccessTokenClaims;
  // A token issued in the future (beyond the clock tolerance) was not issued by this clock.
  if (typeof claims.iat !== 'number' || claims.iat > Date.now() / 1000 + CLOCK_TOLERANCE_SECONDS) throw invalidToken();
  // One audience, a string: a list (which `jwtVerify` would take if one member fitted) is no token of ours.
  if (resourceOfAudience(claims.aud) === undefined) throw invalidToken();
  if (!USER_ID.test(claims.sub) || (claims.kind !== 'patient' && claims.kind !== 'practitioner')) throw invalidToken();
  if (claims.patient !== undefined && (claims.kind !== 'patient' || typeof claims.patient !== 'string' || !USER_ID.test(claims.patient))) {
    throw invalidToken();
  }
  if (typeof claims.scope !== 'string') claims.scope = '';
  verified.set(token, { claims: { ...claims }, kid });
  return claims;
}

/** Forget verified tokens (tests, benchmarks). */
export function forgetVerifiedTokens(): void {
  verified.clear();
}
