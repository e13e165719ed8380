/** The directory store port on the directory table (the service's adapter). */
import { codes, dataSources } from './dynamo-catalog';
import { oauthClients } from './dynamo-oauth-clients';
import type { DirectoryStore } from './port';

export const dynamoDirectoryStore: DirectoryStore = { codes, dataSources, oauthClients };
