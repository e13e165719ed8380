/**
 * Sign-in sessions: what a password sign-in leaves for the page that follows it, server-side and
 * for minutes only. The consent page's session holds the authorization request (so its form carries
 * nothing a post could change but the answer) and is used once; the connected applications page's
 * lasts `CONNECTIONS_SESSION_SECONDS` and ends at sign-out. Each is found by a random id (its
 * SHA-256 is the key) and is bound to a CSRF token whose hash it keeps: a post must carry both.
 */
import type { Id, UserKind } from '../directory/model';
import { hashSecret, randomAlphanumeric, secretMatches } from '../secrets';
import { nowSeconds } from './clock';
import { oauthStore } from './store/current';
import type { PendingAuthorization, SignInSession } from './store/port';

export type { PendingAuthorization, SignInSession } from './store/port';

/** How long a consent page may stay unanswered. */
export const CONSENT_SESSION_SECONDS = 10 * 60;
/** How long the connected applications page stays signed in. */
export const CONNECTIONS_SESSION_SECONDS = 15 * 60;

const SESSION_ID = /^[A-Za-z0-9]{43}$/;

/**
 * The CSRF token of a session that has none of its own (the connections page's): derived from the
 * session's id, which only the person's browser holds (an HttpOnly cookie), so a page can be shown
 * again with it while only its hash is stored.
 */
export const sessionCsrf = (id: string): string => hashSecret(`csrf ${id}`);

/** Starts a session; answers its id (the only copy: only its hash is stored). Without `csrf`, its token is `sessionCsrf(id)`. */
export async function startSession(input: { userId: Id; kind: UserKind; csrf?: string; authorization?: PendingAuthorization; seconds: number }): Promise<string> {
  const id = randomAlphanumeric(43);
  const createdAt = nowSeconds();
  await oauthStore().sessions.insert({
    sessionHash: hashSecret(id),
    userId: input.userId,
    kind: input.kind,
    csrfHash: hashSecret(input.csrf ?? sessionCsrf(id)),
    ...(input.authorization ? { authorization: input.authorization } : {}),
    createdAt,
    expiresAt: createdAt + input.seconds,
  });
  return id;
}

/** The live session of this id, if the CSRF token is its own; anything else (unknown, expired, forged) `undefined`. */
export async function openSession(id: string | undefined, csrf: string | undefined): Promise<SignInSession | undefined> {
  if (id === undefined || !SESSION_ID.test(id) || !csrf) return undefined;
  const session = await oauthStore().sessions.get(hashSecret(id));
  if (!session || session.expiresAt <= nowSeconds() || !secretMatches(csrf, session.csrfHash)) return undefined;
  return session;
}

/** The live session of this id, without a CSRF token (for a page that only shows). */
export async function sessionOf(id: string | undefined): Promise<SignInSession | undefined> {
  if (id === undefined || !SESSION_ID.test(id)) return undefined;
  const session = await oauthStore().sessions.get(hashSecret(id));
  return session && session.expiresAt > nowSeconds() ? session : undefined;
}

/** Ends the session; `true` for the one call that ended it (a consent is answered once). */
export const endSession = (id: string): Promise<boolean> => oauthStore().sessions.take(hashSecret(id));
