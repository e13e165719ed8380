/** The catalog store contract (test/contract/catalog-store.ts) against DynamoDB Local and the in-memory twin. */
import { dynamoCatalogStore } from '../../shared/directory/catalog/dynamo';
import { memoryCatalogStore } from '../../shared/directory/catalog/memory';
import { catalogStoreContract } from '../contract/catalog-store';

catalogStoreContract([
  ['dynamodb', () => dynamoCatalogStore],
  ['memory', memoryCatalogStore],
]);
