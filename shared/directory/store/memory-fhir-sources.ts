/** The in-memory twin of the FHIR Sources. */
import { copy, counter } from '../../store/memory';
import type { MemoryTables } from './memory-tables';
import { fhirSourceDataSourceNotFound, patientNotFound, type FhirSourceRecords } from './port';

export function memoryFhirSources(t: MemoryTables): FhirSourceRecords {
  const { fhirSources } = t;
  const dataSourceExists = async (id: number) => (await t.catalog.dataSources.get(id)) !== undefined;
  return {
    newId: counter(),
    insert: async (source) => {
      if (!(await dataSourceExists(source.dataSourceId))) throw fhirSourceDataSourceNotFound(source.dataSourceId);
      if (!t.patients.has(source.patientId)) throw patientNotFound(source.patientId);
      fhirSources.insert(source);
    },
    get: fhirSources.get,
    ofPatient: async (patientId) =>
      fhirSources
        .all()
        .filter((s) => s.patientId === patientId)
        .reverse()
        .map(copy),
    read: fhirSources.read,
    update: async (read, next, checkDataSource) => {
      const dataSourceFound = !checkDataSource || (await dataSourceExists(next.dataSourceId));
      fhirSources.assertAt(read);
      if (!dataSourceFound) throw fhirSourceDataSourceNotFound(next.dataSourceId);
      fhirSources.replace(read, next);
    },
    remove: async (id) => {
      fhirSources.stored(id);
      fhirSources.remove(id);
    },
  };
}
