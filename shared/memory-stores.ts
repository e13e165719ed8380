/**
 * Every store port on its in-memory twin, wired as the service's stores are wired: the auxiliary
 * store's writes are guarded by the directory's records (a row of a deleted FHIR Source or patient
 * is refused), as DynamoDB guards them in the same transaction. Each call makes a new, empty set.
 * For tests that need no tables; never deployed.
 */
import { memoryAuxiliaryStore } from './auxiliary/store/memory';
import { memoryBrandStore } from './brands/store/memory';
import type { Guard } from './auxiliary/store/port';
import { memoryDirectoryStore } from './directory/store/memory';
import { memoryExportStore, type MemoryExportStore } from './export/store/memory';
import { memoryMcpStore } from './mcp/store/memory';
import { memoryOAuthStore } from './oauth/store/memory';
import { memoryObservationStore } from './observations/store/memory';
import { memorySummaryStore } from './observations/store/memory-summaries';
import { heldLines } from './store/memory';
import type { Stores } from './stores';

/** Every record of every twin, as sorted JSON lines `[kind, key, record]` per store (id counters and `/mcp`'s rate windows, bookkeeping, left out). */
export type StoreSnapshot = Record<'directory' | 'oauth' | 'observations' | 'auxiliary' | 'bodies' | 'brands' | 'exports', string[]>;

export interface MemoryStores extends Stores {
  exports: MemoryExportStore;
  /** What the twins hold now, for a test to compare with what they held before. */
  snapshot(): StoreSnapshot;
}

export function memoryStores(): MemoryStores {
  const directory = memoryDirectoryStore();
  const exists = async (guard: Guard) =>
    (guard.kind === 'patient' ? await directory.patients.get(guard.id) : await directory.fhirSources.get(guard.id)) !== undefined;
  const stores = {
    directory,
    oauth: memoryOAuthStore(),
    observations: memoryObservationStore(),
    summaries: memorySummaryStore(),
    auxiliary: memoryAuxiliaryStore({ exists }),
    brands: memoryBrandStore(),
    exports: memoryExportStore(),
    mcp: memoryMcpStore(),
  } satisfies Stores;
  const snapshot = (): StoreSnapshot => {
    const { bodies, ...auxiliary } = stores.auxiliary;
    return {
      directory: heldLines(stores.directory),
      oauth: heldLines(stores.oauth),
      // The day summaries live in the observations table, beside the readings.
      observations: [...heldLines(stores.observations), ...heldLines(stores.summaries)].sort(),
      auxiliary: heldLines(auxiliary),
      bodies: heldLines(bodies),
      brands: heldLines(stores.brands),
      exports: heldLines(stores.exports),
    };
  };
  return { ...stores, snapshot };
}
