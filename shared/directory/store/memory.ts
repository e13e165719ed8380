/**
 * The directory store port in memory: a twin of the DynamoDB adapter for tests that need no tables.
 * The contract suite (test/contract/directory-store.ts) holds it to the same behaviour. Each call
 * makes a new, empty store.
 */
import { memoryCatalog } from './memory-catalog';
import { memoryOAuthClients } from './memory-oauth-clients';
import type { DirectoryStore } from './port';

export function memoryDirectoryStore(): DirectoryStore {
  return { ...memoryCatalog(), oauthClients: memoryOAuthClients() };
}
