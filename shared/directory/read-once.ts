/**
 * Read-only work that reads each patient record at most once: within `readingPatientsOnce`,
 * `getPatient` and `getPatients` (./patients.ts) share the records they read, in flight or read.
 * An assistant's tool call checks that the caller may see a patient while the search it runs
 * resolves the same patient's scope: one read of the record, not two. The work's own async context
 * holds the records (AsyncLocalStorage), so nothing outlives it or reaches another request; only
 * for work that writes no patient (a record read before a write would be read stale).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Id, Patient } from './model';

type Reads = Map<Id, Promise<Patient | undefined>>;

const current = new AsyncLocalStorage<Reads>();

export function readingPatientsOnce<T>(work: () => Promise<T>): Promise<T> {
  return current.run(new Map(), work);
}

/** Each reader gets its own copy: one reader's change to a record never reaches another. */
const copied = (read: Promise<Patient | undefined>) => read.then((p) => p && structuredClone(p));

/** The record of `id`, read by `read` unless this work read it already. */
export function patientOnce(id: Id, read: (id: Id) => Promise<Patient | undefined>): Promise<Patient | undefined> {
  const reads = current.getStore();
  if (!reads) return read(id);
  let known = reads.get(id);
  if (!known) reads.set(id, (known = read(id)));
  return copied(known);
}

/** The records of `ids` that exist, in the order given; those this work has not read are read together by `readMany`. */
export async function patientsOnce(ids: readonly Id[], readMany: (ids: readonly Id[]) => Promise<Patient[]>): Promise<Patient[]> {
  const reads = current.getStore();
  if (!reads) return readMany(ids);
  const missing = [...new Set(ids)].filter((id) => !reads.has(id));
  if (missing.length > 0) {
    const batch = readMany(missing);
    for (const id of missing) reads.set(id, batch.then((found) => found.find((p) => p.id === id)));
  }
  const found = await Promise.all(ids.map((id) => copied(reads.get(id)!)));
  return found.filter((p): p is Patient => p !== undefined);
}
