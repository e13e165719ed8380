/**
 * The OAuth store the process uses: the DynamoDB adapter unless the code that builds a handler (or
 * a test) installs another, such as the in-memory twin. No module path needs mocking to swap it.
 */
import { dynamoOAuthStore } from './dynamo';
import type { OAuthStore } from './port';

let current: OAuthStore = dynamoOAuthStore;

export function oauthStore(): OAuthStore {
  return current;
}

/** Installs an OAuth store for this process; returns the one it replaced (to put it back). */
export function useOAuthStore(store: OAuthStore): OAuthStore {
  const previous = current;
  current = store;
  return previous;
}
