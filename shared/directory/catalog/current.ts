/**
 * The catalog store the process uses: the DynamoDB adapter unless the code that builds a handler
 * (or a test) installs another, such as the in-memory twin. No module path needs mocking to swap it.
 */
import { dynamoCatalogStore } from './dynamo';
import type { CatalogStore } from './port';

let current: CatalogStore = dynamoCatalogStore;

export function catalogStore(): CatalogStore {
  return current;
}

/** Installs a catalog store for this process; returns the one it replaced (to put it back). */
export function useCatalogStore(store: CatalogStore): CatalogStore {
  const previous = current;
  current = store;
  return previous;
}
