/**
 * FHIR Sources (docs/api.md#management-api-apiv1): a patient's registration of an upstream FHIR server, needed for every
 * auxiliary write. Each registration is a new source (re-running the pull flow adds new rows).
 */
import { now } from './fields';
import type { FhirSource, Id } from './model';
import { directoryStore } from './store/current';

export { fhirSourceNotFound } from './store/port';

export interface FhirSourceInput {
  patientId: Id;
  dataSourceId: Id;
  label?: string;
  fhirBaseUrl?: string;
}

export type FhirSourcePatch = Partial<Pick<FhirSource, 'dataSourceId' | 'label' | 'fhirBaseUrl'>>;

export async function createFhirSource(input: FhirSourceInput): Promise<FhirSource> {
  const { fhirSources } = directoryStore();
  const at = now();
  const source: FhirSource = {
    id: await fhirSources.newId(),
    patientId: input.patientId,
    dataSourceId: input.dataSourceId,
    label: input.label ?? '',
    fhirBaseUrl: input.fhirBaseUrl ?? '',
    createdAt: at,
    updatedAt: at,
  };
  await fhirSources.insert(source);
  return source;
}

/** A source by id, read strongly consistent (it gates writes). */
export const getFhirSource = (id: Id): Promise<FhirSource | undefined> => directoryStore().fhirSources.get(id);

/** A patient's sources, newest first. */
export const listFhirSourcesOfPatient = (patientId: Id): Promise<FhirSource[]> => directoryStore().fhirSources.ofPatient(patientId);

export async function updateFhirSource(id: Id, patch: FhirSourcePatch): Promise<FhirSource> {
  const { fhirSources } = directoryStore();
  const read = await fhirSources.read(id);
  const next: FhirSource = { ...read.entity, ...patch, updatedAt: now() };
  // A data source named in the change is checked even when it is the same one.
  await fhirSources.update(read, next, patch.dataSourceId !== undefined);
  return next;
}

/** Deletes the source record (its auxiliary rows are deleted by the auxiliary store's own module). */
export const deleteFhirSource = (id: Id): Promise<void> => directoryStore().fhirSources.remove(id);
