/**
 * The directory store port in memory: a twin of the DynamoDB adapter for tests that need no tables.
 * The contract suite (test/contract/directory-store.ts) holds it to the same behaviour. Each call
 * makes a new, empty store.
 */
import { holding } from '../../store/memory';
import { memoryCatalog } from './memory-catalog';
import { memoryConsents } from './memory-consents';
import { memoryFhirSources } from './memory-fhir-sources';
import { memoryOAuthClients } from './memory-oauth-clients';
import { memoryOrganizations } from './memory-organizations';
import { memoryPatients } from './memory-patients';
import { memoryStudies } from './memory-studies';
import { heldTables, memoryTables } from './memory-tables';
import { memoryUsers } from './memory-users';
import type { DirectoryStore } from './port';

export function memoryDirectoryStore(): DirectoryStore {
  const catalog = memoryCatalog();
  const oauthClients = memoryOAuthClients();
  const tables = memoryTables({ dataSources: catalog.dataSources, oauthClients });
  const store: DirectoryStore = {
    ...catalog,
    oauthClients,
    ...memoryOrganizations(tables),
    users: memoryUsers(tables),
    patients: memoryPatients(tables),
    studies: memoryStudies(tables),
    consents: memoryConsents(tables),
    fhirSources: memoryFhirSources(tables),
  };
  return holding(store, heldTables(tables));
}
