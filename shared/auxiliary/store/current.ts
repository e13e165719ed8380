/**
 * The auxiliary store the process uses: the DynamoDB adapter unless the code that builds a handler
 * (or a test) installs another, such as the in-memory twin. No module path needs mocking to swap it.
 */
import { dynamoAuxiliaryStore } from './dynamo';
import type { AuxiliaryStore } from './port';

let current: AuxiliaryStore = dynamoAuxiliaryStore;

export function auxiliaryStore(): AuxiliaryStore {
  return current;
}

/** Installs an auxiliary store for this process; returns the one it replaced (to put it back). */
export function useAuxiliaryStore(store: AuxiliaryStore): AuxiliaryStore {
  const previous = current;
  current = store;
  return previous;
}
