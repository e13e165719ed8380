/**
 * The auxiliary store port in memory: a twin of the DynamoDB adapter for tests that need no tables.
 * The contract suite (test/contract/auxiliary-store.ts) holds it to the same behaviour. Each call
 * makes a new, empty store.
 */
import { memoryBodies } from './memory-bodies';
import { memoryPending } from './memory-pending';
import { memoryRows, type Exists } from './memory-rows';
import type { AuxiliaryStore } from './port';

export interface MemoryAuxiliaryOptions {
  /**
   * Whether a directory record a write is guarded by (its FHIR Source, its patient) still exists,
   * answered by whichever directory the test uses. Absent: every one does.
   */
  exists?: Exists;
}

export function memoryAuxiliaryStore(options: MemoryAuxiliaryOptions = {}): AuxiliaryStore {
  const pending = memoryPending();
  return { rows: memoryRows(pending, options.exists ?? (() => true)), pending: pending.api, bodies: memoryBodies() };
}
