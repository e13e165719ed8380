/**
 * The directory store the process uses: the DynamoDB adapter unless the code that builds a handler
 * (or a test) installs another, such as the in-memory twin. No module path needs mocking to swap it.
 */
import { dynamoDirectoryStore } from './dynamo';
import type { DirectoryStore } from './port';

let current: DirectoryStore = dynamoDirectoryStore;

export function directoryStore(): DirectoryStore {
  return current;
}

/** Installs a directory store for this process; returns the one it replaced (to put it back). */
export function useDirectoryStore(store: DirectoryStore): DirectoryStore {
  const previous = current;
  current = store;
  return previous;
}
