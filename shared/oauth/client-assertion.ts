/**
 * A backend client's authentication at the token endpoint (`private_key_jwt`: RFC 7523 §3 and
 * SMART's asymmetric client authentication). The client assertion is a JWT the client signs with
 * its private key (RS384 or ES384): header `kid` (and `typ: JWT`), claims `iss` = `sub` = its
 * client id, `aud` = the token endpoint, `exp` at most five minutes ahead, a `jti` used once.
 *
 * `verifyClientAssertion` checks all of it but the `jti`'s novelty, which `spendAssertion`
 * records last, once the request is otherwise granted: a refused request changes nothing, and two
 * requests racing with one assertion get one token. Every failure is `invalid_client` (401) with a
 * description that says what to fix.
 */
import { decodeJwt, decodeProtectedHeader, errors, importJWK, jwtVerify, type JWTPayload, type ProtectedHeaderParameters } from 'jose';
import { CLIENT_ASSERTION_MAX_SECONDS, CLOCK_TOLERANCE_SECONDS } from '../auth/lifetimes';
import { hashSecret } from '../secrets';
import type { OAuthClient, PublicJwk } from '../directory/model';
import { getOAuthClient } from '../directory/oauth-clients';
import { ASSERTION_ALGORITHMS, chooseKey, type AssertionAlgorithm } from './client-keys';
import { nowMs, nowSeconds } from './clock';
import { oauthError } from './errors';
import { keysAt } from './jwks-uri';
import { oauthStore } from './store/current';

export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

const MAX_JTI_LENGTH = 256;

/** What a verified assertion leaves for `spendAssertion`. */
export interface VerifiedAssertion {
  clientId: string;
  jti: string;
  /** The assertion's `exp` (epoch seconds). */
  exp: number;
}

const refused = (why: string) => oauthError('invalid_client', `Client authentication failed: ${why}`);

/** A backend client has registered keys; any other client cannot sign in with an assertion. */
export const isBackendClient = (client: OAuthClient): boolean => client.jwks !== undefined || client.jwksUri !== undefined;

function decoded(assertion: string): { header: ProtectedHeaderParameters; claims: JWTPayload } {
  try {
    return { header: decodeProtectedHeader(assertion), claims: decodeJwt(assertion) };
  } catch {
    throw refused('the client_assertion is not a signed JWT.');
  }
}

/** The keys the assertion may be verified with (SMART: `jku` only as registered, else the registered set). */
async function registeredKeys(client: OAuthClient, header: ProtectedHeaderParameters, kid: string): Promise<readonly PublicJwk[]> {
  if (header.jku !== undefined && header.jku !== client.jwksUri) throw refused('the assertion header names a jku that is not the JWK Set URL registered for this client.');
  if (client.jwks) return client.jwks.keys;
  try {
    return await keysAt(client.jwksUri!, kid);
  } catch (e) {
    throw refused(`the client's JWK Set URL could not be read: ${(e as Error).message}`);
  }
}

/** What to fix, from jose's refusal of the assertion. */
function reasonOf(error: unknown, tokenEndpoint: string): string {
  if (error instanceof errors.JWTExpired) return 'the assertion has expired.';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the signature does not verify with the registered key of this kid.';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'aud') return `its aud must be the token endpoint, ${tokenEndpoint}.`;
    if (error.claim === 'iss' || error.claim === 'sub') return 'its iss and sub must both be the client id.';
    if (error.claim === 'typ') return 'its header typ must be JWT.';
    if (error.claim === 'nbf') return 'the assertion is not valid yet (nbf).';
    return `its ${error.claim} claim is missing or not valid.`;
  }
  return 'the assertion is not a valid JWT.';
}

/**
 * The backend client a `client_assertion` authenticates, with what `spendAssertion` needs; 401
 * `invalid_client` for anything else. `clientIdParam`, when the form has one, must be the assertion's `iss`.
 */
export async function verifyClientAssertion(assertion: string, clientIdParam: string | undefined, tokenEndpoint: string): Promise<{ client: OAuthClient; assertion: VerifiedAssertion }> {
  const { header, claims } = decoded(assertion);
  const clientId = claims.iss;
  if (typeof clientId !== 'string' || clientId.length === 0 || clientId.length > 256) throw refused('the assertion has no iss (the client id).');
  if (clientIdParam !== undefined && clientIdParam !== clientId) throw refused('the client_id parameter differs from the assertion\'s iss.');
  const alg = header.alg as AssertionAlgorithm;
  if (!ASSERTION_ALGORITHMS.includes(alg)) throw refused(`sign the assertion with ${ASSERTION_ALGORITHMS.join(' or ')}.`);
  if (typeof header.kid !== 'string') throw refused('the assertion header has no kid.');
  const client = await getOAuthClient(clientId);
  if (!client || !isBackendClient(client)) throw refused('no client with registered keys has this client id.');
  const jwk = chooseKey(await registeredKeys(client, header, header.kid), { alg, kid: header.kid });
  if (!jwk) throw refused(`no registered key of this client has the kid ${header.kid.slice(0, 128)} and fits ${alg}.`);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(assertion, await importJWK(jwk, alg), {
      algorithms: [alg],
      typ: 'JWT',
      issuer: clientId,
      subject: clientId,
      audience: tokenEndpoint,
      requiredClaims: ['iss', 'sub', 'aud', 'exp', 'jti'],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: new Date(nowMs()),
    }));
  } catch (e) {
    throw refused(reasonOf(e, tokenEndpoint));
  }
  const exp = payload.exp!;
  if (exp > nowSeconds() + CLIENT_ASSERTION_MAX_SECONDS + CLOCK_TOLERANCE_SECONDS) throw refused('its exp is more than five minutes ahead.');
  const jti = payload.jti;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH) throw refused(`its jti must be text of 1 to ${MAX_JTI_LENGTH} characters.`);
  return { client, assertion: { clientId, jti, exp } };
}

/** Records the assertion's `jti` as used; 401 `invalid_client` when it was used before (a replay). */
export async function spendAssertion(assertion: VerifiedAssertion): Promise<void> {
  const kept = assertion.exp + CLOCK_TOLERANCE_SECONDS;
  if (!(await oauthStore().clientAssertions.use(assertion.clientId, hashSecret(assertion.jti), kept, nowSeconds()))) {
    throw refused('this assertion was used already (its jti): sign a new one for every token request.');
  }
}
