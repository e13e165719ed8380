/**
 * Every store port on its in-memory twin, wired as the service's stores are wired: the auxiliary
 * store's writes are guarded by the directory's records (a row of a deleted FHIR Source or patient
 * is refused), as DynamoDB guards them in the same transaction. Each call makes a new, empty set.
 * For tests that need no tables; never deployed.
 */
import { memoryAuxiliaryStore } from './auxiliary/store/memory';
import type { Guard } from './auxiliary/store/port';
import { memoryDirectoryStore } from './directory/store/memory';
import { memoryOAuthStore } from './oauth/store/memory';
import { memoryObservationStore } from './observations/store/memory';
import type { Stores } from './stores';

export function memoryStores(): Stores {
  const directory = memoryDirectoryStore();
  const exists = async (guard: Guard) =>
    (guard.kind === 'patient' ? await directory.patients.get(guard.id) : await directory.fhirSources.get(guard.id)) !== undefined;
  return {
    directory,
    oauth: memoryOAuthStore(),
    observations: memoryObservationStore(),
    auxiliary: memoryAuxiliaryStore({ exists }),
  };
}
