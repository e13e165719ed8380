/** The brands store contract (test/contract/brand-store.ts) against DynamoDB Local and the in-memory twin. */
import { dynamoBrandStore } from '../../../shared/brands/store/dynamo';
import { memoryBrandStore } from '../../../shared/brands/store/memory';
import { brandStoreContract } from '../../contract/brand-store';

brandStoreContract([
  ['dynamodb', () => dynamoBrandStore],
  ['memory', memoryBrandStore],
]);
