/**
 * FHIR Sources (spec 2.5): a patient's registration of an upstream FHIR server, needed for every
 * auxiliary write. Each registration is a new source (re-running the pull flow adds new rows).
 */
import { badRequest, conflict, notFound } from '../http/errors';
import { check, now, queryAll, remove, transact } from './db';
import { entityStore } from './entity';
import { newId } from './ids';
import { indexes, keys } from './keys';
import type { FhirSource, Id } from './model';

export interface FhirSourceInput {
  patientId: Id;
  dataSourceId: Id;
  label?: string;
  fhirBaseUrl?: string;
}

export type FhirSourcePatch = Partial<Pick<FhirSource, 'dataSourceId' | 'label' | 'fhirBaseUrl'>>;

export const fhirSourceNotFound = (id: Id) => notFound(`FHIR Source ${id} not found.`);

const fhirSources = entityStore<FhirSource, Id>({
  key: keys.fhirSource,
  toItem: (source) => ({ ...keys.fhirSource(source.id), ...indexes.fhirSource(source.id, source.patientId), ...source }),
  notFound: fhirSourceNotFound,
});

const dataSourceMustExist = (id: Id) =>
  check(keys.dataSource(id), 'attribute_exists(pk)', {}, () =>
    badRequest(`Data source ${id} not found.`, 'not-found', { fields: { dataSource: [`Invalid pk "${id}" - object does not exist.`] } }),
  );

export async function createFhirSource(input: FhirSourceInput): Promise<FhirSource> {
  const id = await newId('fhirSource');
  const at = now();
  const source: FhirSource = {
    id,
    patientId: input.patientId,
    dataSourceId: input.dataSourceId,
    label: input.label ?? '',
    fhirBaseUrl: input.fhirBaseUrl ?? '',
    createdAt: at,
    updatedAt: at,
  };
  await transact([
    fhirSources.create(source, () => conflict('FHIR Source id collision.')),
    dataSourceMustExist(input.dataSourceId),
    check(keys.patient(input.patientId), 'attribute_exists(pk)', {}, () => notFound(`Patient ${input.patientId} not found.`)),
  ]);
  return source;
}

/** A source by id, read strongly consistent (it gates writes). */
export const getFhirSource = fhirSources.get;

/** A patient's sources, newest first. */
export async function listFhirSourcesOfPatient(patientId: Id): Promise<FhirSource[]> {
  const index = indexes.fhirSourcesOfPatient(patientId);
  return (await queryAll({ index: index.name, pk: index.pk, descending: true })).map(fhirSources.fromItem);
}

export async function updateFhirSource(id: Id, patch: FhirSourcePatch): Promise<FhirSource> {
  const { entity, version } = await fhirSources.read(id);
  const next: FhirSource = { ...entity, ...patch, updatedAt: now() };
  await transact([
    fhirSources.replace(next, version),
    ...(patch.dataSourceId !== undefined ? [dataSourceMustExist(patch.dataSourceId)] : []),
  ]);
  return next;
}

/** Deletes the source record (its auxiliary rows are deleted by the auxiliary store's own module). */
export async function deleteFhirSource(id: Id): Promise<void> {
  await transact([remove(keys.fhirSource(id), { condition: 'attribute_exists(pk)' }, () => fhirSourceNotFound(id))]);
}
