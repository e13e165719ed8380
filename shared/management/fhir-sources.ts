/**
 * FHIR Sources through `/api/v1/fhir_sources` (docs/api.md#management-api-apiv1): a patient registers the upstream servers
 * their auxiliary data comes from, and lists, reads, changes and deletes their own, and only their
 * own (anyone else's id is a 404, exactly as a missing one). Deleting a source deletes every row
 * written through it.
 */
import { isPatient, type Caller, type PatientCaller } from '../auth/caller';
import { createFhirSource, deleteFhirSource, getFhirSource, listFhirSourcesOfPatient, updateFhirSource, type FhirSourcePatch } from '../directory/fhir-sources';
import type { FhirSource, Id, Paging } from '../directory/model';
import { pageOf } from '../directory/paging';
import { forbidden, notFound } from '../http/errors';
import { purgeFhirSourceData } from './purge';
import { ignoreNotFound } from './errors';
import { fhirSourceView } from './views';

export interface NewFhirSource {
  dataSourceId: Id;
  label?: string;
  fhirBaseUrl?: string;
}

/** What a caller who is not a patient gets from a registration (the route's refusal). */
export const onlyPatientsRegister = () => forbidden('Only patients may register FHIR Sources.');

async function ownSource(caller: Caller, id: Id): Promise<FhirSource> {
  const source = isPatient(caller) ? await getFhirSource(id) : undefined;
  if (!source || !isPatient(caller) || source.patientId !== caller.patientId) throw notFound(`FHIR Source ${id} not found.`);
  return source;
}

export async function registerFhirSource(patient: PatientCaller, input: NewFhirSource) {
  return fhirSourceView(
    await createFhirSource({
      patientId: patient.patientId,
      dataSourceId: input.dataSourceId,
      ...(input.label !== undefined ? { label: input.label } : {}),
      ...(input.fhirBaseUrl !== undefined ? { fhirBaseUrl: input.fhirBaseUrl } : {}),
    }),
  );
}

/** The caller's own sources, newest first (none for a practitioner). */
export async function listOwnFhirSources(caller: Caller, paging: Paging) {
  const sources = isPatient(caller) ? await listFhirSourcesOfPatient(caller.patientId) : [];
  const page = pageOf(sources, paging);
  return { count: page.count, items: page.items.map(fhirSourceView) };
}

export async function readOwnFhirSource(caller: Caller, id: Id) {
  return fhirSourceView(await ownSource(caller, id));
}

export async function updateOwnFhirSource(caller: Caller, id: Id, patch: FhirSourcePatch) {
  await ownSource(caller, id);
  return fhirSourceView(await updateFhirSource(id, patch));
}

/**
 * Deletes the source with its data: the rows first (a failure leaves the source for a retry), then
 * the source, then the rows once more for writes that raced with the first pass (none can follow:
 * a write needs the source).
 */
export async function deleteOwnFhirSource(caller: Caller, id: Id): Promise<void> {
  const source = await ownSource(caller, id);
  await purgeFhirSourceData(source);
  await deleteFhirSource(id).catch(ignoreNotFound);
  await purgeFhirSourceData(source);
}
