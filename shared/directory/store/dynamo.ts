/** The directory store port on the directory table (the service's adapter). */
import { codes, dataSources } from './dynamo-catalog';
import { consents } from './dynamo-consents';
import { fhirSources } from './dynamo-fhir-sources';
import { memberships } from './dynamo-memberships';
import { oauthClients } from './dynamo-oauth-clients';
import { organizations } from './dynamo-organizations';
import { patients } from './dynamo-patients';
import { studies } from './dynamo-studies';
import { users } from './dynamo-users';
import type { DirectoryStore } from './port';

export const dynamoDirectoryStore: DirectoryStore = { codes, dataSources, oauthClients, organizations, memberships, users, patients, studies, consents, fhirSources };
