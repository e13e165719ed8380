/** The directory store contract (test/contract/directory-store.ts) against DynamoDB Local and the in-memory twin. */
import { dynamoDirectoryStore } from '../../../shared/directory/store/dynamo';
import { memoryDirectoryStore } from '../../../shared/directory/store/memory';
import { directoryStoreContract } from '../../contract/directory-store';

directoryStoreContract([
  ['dynamodb', () => dynamoDirectoryStore],
  ['memory', memoryDirectoryStore],
]);
