/**
 * Records the calls the API makes to `shared/management/purge.ts` (the data stores' deletion hooks),
 * with whether the directory record still existed at that moment. Use with
 * `vi.mock('../../../shared/management/purge', () => purgeRecorderModule())` in a test file.
 */
import { getFhirSource } from '../../shared/directory/fhir-sources';
import { getPatient } from '../../shared/directory/patients';

export interface PurgeCall {
  kind: 'patient' | 'fhirSource';
  id: number;
  /** The patient / FHIR Source record existed when the hook ran. */
  recordExisted: boolean;
}

export const purgeCalls: PurgeCall[] = [];

/** When set, the next hook call throws this (to inject a store failure). */
export const purgeFaults: { next?: Error } = {};

async function record(kind: PurgeCall['kind'], id: number): Promise<void> {
  const recordExisted = kind === 'patient' ? (await getPatient(id)) !== undefined : (await getFhirSource(id)) !== undefined;
  purgeCalls.push({ kind, id, recordExisted });
  const fault = purgeFaults.next;
  if (fault) {
    purgeFaults.next = undefined;
    throw fault;
  }
}

export function purgeRecorderModule() {
  return {
    purgePatientData: (id: number) => record('patient', id),
    purgeFhirSourceData: (source: { id: number }) => record('fhirSource', source.id),
  };
}
