/** How long each credential of the service lives: the one place these numbers are decided. */

/** Access tokens (JWT): short, because they are verified without a database call. */
export const ACCESS_TOKEN_SECONDS = 15 * 60;

/** A backend service's access tokens (SMART Backend Services recommends five minutes; the client signs in again). */
export const BACKEND_ACCESS_TOKEN_SECONDS = 5 * 60;

/** A backend service's signed client assertion may expire at most this far ahead; its `jti` is kept until then. */
export const CLIENT_ASSERTION_MAX_SECONDS = 5 * 60;

/** Refresh tokens: rotated on every use; a family unused for this long expires (DynamoDB TTL). */
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;

/** Authorization codes: single use, and only this long. */
export const AUTHORIZATION_CODE_SECONDS = 60;

/** Invitations expire this long after they are issued. */
export const INVITATION_SECONDS = 7 * 24 * 3600;

/** A redeemed invitation may be redeemed again within this window (each redemption restarts it). */
export const INVITATION_REDEMPTION_WINDOW_SECONDS = 12 * 3600;

/** Allowed clock difference between the signer and a verifier. */
export const CLOCK_TOLERANCE_SECONDS = 5;
