/**
 * The observation store the process uses: the DynamoDB adapter unless the code that builds a
 * handler (or a test) installs another, such as the in-memory twin. No module path needs mocking
 * to swap it.
 */
import { dynamoObservationStore } from './dynamo';
import type { ObservationStore } from './port';

let current: ObservationStore = dynamoObservationStore;

export function observationStore(): ObservationStore {
  return current;
}

/** Installs an observation store for this process; returns the one it replaced (to put it back). */
export function useObservationStore(store: ObservationStore): ObservationStore {
  const previous = current;
  current = store;
  return previous;
}
