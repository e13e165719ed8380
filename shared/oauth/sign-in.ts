/**
 * Password sign-in for the authorization endpoint's login page, with failed attempts counted per
 * email address: after 5 failures within 15 minutes the address is locked for 15 minutes (a correct
 * password included). Counting happens for any address typed, existing or not, under the SHA-256 of
 * the lower-cased address, and an unknown address still costs one scrypt, so neither the answers nor
 * their timing tell whether an account exists.
 */
import { hashPassword, verifyPassword } from '../auth/passwords';
import { hashSecret, randomAlphanumeric } from '../secrets';
import type { User } from '../directory/model';
import { getUserByEmail } from '../directory/users';
import { nowSeconds } from './clock';
import { oauthStore } from './store/current';

export const MAX_FAILURES = 5;
export const FAILURE_WINDOW_SECONDS = 15 * 60;
export const LOCKOUT_SECONDS = 15 * 60;
/** Longer input is refused without hashing it (scrypt of megabytes is a denial of service). */
export const MAX_PASSWORD_LENGTH = 1024;
export const MAX_EMAIL_LENGTH = 320;

export type SignInResult = { ok: true; user: User } | { ok: false; locked: false } | { ok: false; locked: true; retryAfterSeconds: number };

let dummyHash: Promise<string> | undefined;

/** A hash no password matches, verified against for unknown addresses so they take as long as known ones. */
function decoy(): Promise<string> {
  dummyHash ??= hashPassword(randomAlphanumeric(32));
  return dummyHash;
}

/** One count per address however it is typed (case, spaces), kept under a hash so unknown addresses are not stored. */
function addressHash(email: string): string {
  return hashSecret(email.trim().toLowerCase());
}

/** Records a failure; answers the lockout's end (epoch seconds) when this failure starts one. */
async function recordFailure(email: string, windowStart: number | undefined): Promise<number | undefined> {
  const { signIns } = oauthStore();
  const hash = addressHash(email);
  const now = nowSeconds();
  const expiresAt = now + FAILURE_WINDOW_SECONDS + LOCKOUT_SECONDS;
  if (windowStart === undefined || windowStart + FAILURE_WINDOW_SECONDS <= now) {
    await signIns.set(hash, { failures: 1, windowStart: now, expiresAt });
    return undefined;
  }
  if ((await signIns.addFailure(hash, expiresAt)) < MAX_FAILURES) return undefined;
  const lockedUntil = now + LOCKOUT_SECONDS;
  // The lock starts a fresh window: after it, the address gets MAX_FAILURES attempts again.
  await signIns.set(hash, { failures: 0, windowStart: lockedUntil, lockedUntil, expiresAt: lockedUntil + FAILURE_WINDOW_SECONDS });
  return lockedUntil;
}

export async function signIn(email: string, password: string): Promise<SignInResult> {
  const now = nowSeconds();
  const throttle = email.length <= MAX_EMAIL_LENGTH ? await oauthStore().signIns.get(addressHash(email)) : undefined;
  const lockedUntil = throttle?.lockedUntil;
  if (lockedUntil !== undefined && lockedUntil > now) return { ok: false, locked: true, retryAfterSeconds: lockedUntil - now };

  const fits = email.length <= MAX_EMAIL_LENGTH && password.length <= MAX_PASSWORD_LENGTH;
  const user = fits ? await getUserByEmail(email) : undefined;
  const usable = user && user.active && user.passwordHash ? user : undefined;
  const matches = fits && (await verifyPassword(password, usable?.passwordHash ?? (await decoy())));
  if (usable && matches) {
    if (throttle) await oauthStore().signIns.clear(addressHash(email));
    return { ok: true, user: usable };
  }
  if (email.length > MAX_EMAIL_LENGTH) return { ok: false, locked: false };
  const locked = await recordFailure(email, throttle?.windowStart);
  return locked === undefined ? { ok: false, locked: false } : { ok: false, locked: true, retryAfterSeconds: locked - now };
}
