/**
 * The scope reads' contract (test/contract/scope-store.ts) against DynamoDB Local, with the relations
 * written by the directory's own functions, and against the in-memory twin.
 */
import { dynamoScopeStore } from '../../shared/auth/store/dynamo';
import { memoryScopeStore } from '../../shared/auth/store/memory';
import { addPatientToOrganization, removePatientFromOrganization } from '../../shared/directory/patients';
import { addStudyDataSource, removeStudyDataSource } from '../../shared/directory/studies';
import { counter } from '../../shared/store/memory';
import { scopeStoreContract, type ScopeWorld } from '../contract/scope-store';
import { makeDataSource, makeOrganization, makePatient, makeStudy } from '../support/directory';

const onTable = (): ScopeWorld => ({
  store: dynamoScopeStore,
  organization: async () => (await makeOrganization()).id,
  patient: async () => (await makePatient()).id,
  study: async (organizationId) => (await makeStudy({ organization: organizationId })).id,
  dataSource: async () => (await makeDataSource()).id,
  join: (organizationId, patientId) => addPatientToOrganization(patientId, organizationId),
  leave: (organizationId, patientId) => removePatientFromOrganization(patientId, organizationId),
  link: addStudyDataSource,
  unlink: removeStudyDataSource,
});

function inMemory(): ScopeWorld {
  const { relations, ...store } = memoryScopeStore();
  const id = counter();
  return {
    store,
    organization: id,
    patient: id,
    study: id,
    dataSource: id,
    join: async (organizationId, patientId) => relations.joinOrganization(organizationId, patientId),
    leave: async (organizationId, patientId) => relations.leaveOrganization(organizationId, patientId),
    link: async (studyId, dataSourceId) => relations.linkDataSource(studyId, dataSourceId),
    unlink: async (studyId, dataSourceId) => relations.unlinkDataSource(studyId, dataSourceId),
  };
}

scopeStoreContract([
  ['dynamodb', onTable],
  ['memory', inMemory],
]);
