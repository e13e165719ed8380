/**
 * The scope reads the process uses: the DynamoDB adapter unless the code that builds a handler (or a
 * test) installs another, such as the in-memory twin. No module path needs mocking to swap it.
 */
import { dynamoScopeStore } from './dynamo';
import type { ScopeStore } from './port';

let current: ScopeStore = dynamoScopeStore;

export function scopeStore(): ScopeStore {
  return current;
}

/** Installs the scope reads for this process; returns the ones it replaced (to put them back). */
export function useScopeStore(store: ScopeStore): ScopeStore {
  const previous = current;
  current = store;
  return previous;
}
