/** The export store contract (test/contract/export-store.ts) against DynamoDB Local with s3rver, and the in-memory twin. */
import { dynamoExportStore } from '../../../shared/export/store/dynamo';
import { memoryExportStore } from '../../../shared/export/store/memory';
import { exportStoreContract } from '../../contract/export-store';

exportStoreContract([
  ['dynamodb', () => dynamoExportStore],
  ['memory', memoryExportStore],
]);
