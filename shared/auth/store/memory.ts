/**
 * The scope reads in memory: a twin of the DynamoDB adapter for tests that need no tables, held to
 * the same behaviour by the contract suite (test/contract/scope-store.ts). The directory's twin does
 * not keep memberships or study links yet, so this one takes them through `relations`, the writes
 * the directory makes on the table. Each call makes a new, empty store.
 */
import type { Id } from '../../directory/model';
import type { ScopeStore } from './port';

export interface ScopeRelations {
  joinOrganization(organizationId: Id, patientId: Id): void;
  leaveOrganization(organizationId: Id, patientId: Id): void;
  linkDataSource(studyId: Id, dataSourceId: Id): void;
  unlinkDataSource(studyId: Id, dataSourceId: Id): void;
}

/** A set per key, made on first use. */
function setsByKey() {
  const sets = new Map<Id, Set<Id>>();
  return {
    of: (key: Id): ReadonlySet<Id> => sets.get(key) ?? new Set(),
    add: (key: Id, value: Id) => void sets.set(key, new Set(sets.get(key)).add(value)),
    delete: (key: Id, value: Id) => void sets.get(key)?.delete(value),
  };
}

export function memoryScopeStore(): ScopeStore & { relations: ScopeRelations } {
  const patientsOf = setsByKey();
  const studiesOf = setsByKey();
  return {
    membersAmong: async (organizationId, patientIds) => patientIds.filter((p) => patientsOf.of(organizationId).has(p)),
    studiesUsingDataSource: async (dataSourceId) => [...studiesOf.of(dataSourceId)].sort((a, b) => a - b),
    relations: {
      joinOrganization: (organizationId, patientId) => patientsOf.add(organizationId, patientId),
      leaveOrganization: (organizationId, patientId) => patientsOf.delete(organizationId, patientId),
      linkDataSource: (studyId, dataSourceId) => studiesOf.add(dataSourceId, studyId),
      unlinkDataSource: (studyId, dataSourceId) => studiesOf.delete(dataSourceId, studyId),
    },
  };
}
