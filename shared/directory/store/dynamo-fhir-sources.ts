/** FHIR Sources on the directory table, each also on gsi2 under its patient. */
import { conflict } from '../../http/errors';
import { queryAll, remove, transact } from '../../store/directory-table';
import { entityStore } from '../../store/directory-entity';
import { newId } from '../ids';
import { indexes, keys } from '../../store/directory-keys';
import type { FhirSource, Id } from '../model';
import { mustExist } from './dynamo-relations';
import { fhirSourceDataSourceNotFound, fhirSourceNotFound, patientNotFound, type FhirSourceRecords } from './port';

const sourceEntities = entityStore<FhirSource, Id>({
  key: keys.fhirSource,
  toItem: (source) => ({ ...keys.fhirSource(source.id), ...indexes.fhirSource(source.id, source.patientId), ...source }),
  notFound: fhirSourceNotFound,
});

const dataSourceMustExist = (id: Id) => mustExist(keys.dataSource(id), () => fhirSourceDataSourceNotFound(id));

export const fhirSources: FhirSourceRecords = {
  newId: () => newId('fhirSource'),
  insert: (source) =>
    transact([
      sourceEntities.create(source, () => conflict('FHIR Source id collision.')),
      dataSourceMustExist(source.dataSourceId),
      mustExist(keys.patient(source.patientId), () => patientNotFound(source.patientId)),
    ]),
  get: sourceEntities.get,
  ofPatient: async (patientId) => {
    const index = indexes.fhirSourcesOfPatient(patientId);
    return (await queryAll({ index: index.name, pk: index.pk, descending: true })).map(sourceEntities.fromItem);
  },
  read: sourceEntities.read,
  update: ({ version }, next, checkDataSource) =>
    transact([sourceEntities.replace(next, version), ...(checkDataSource ? [dataSourceMustExist(next.dataSourceId)] : [])]),
  remove: (id) => transact([remove(keys.fhirSource(id), { condition: 'attribute_exists(pk)' }, () => fhirSourceNotFound(id))]),
};
