/** The observation store contract (test/contract/observation-store.ts) against DynamoDB Local and the in-memory twin. */
import { dynamoObservationStore } from '../../../shared/observations/store/dynamo';
import { memoryObservationStore } from '../../../shared/observations/store/memory';
import { observationStoreContract } from '../../contract/observation-store';

observationStoreContract([
  ['dynamodb', () => dynamoObservationStore],
  ['memory', memoryObservationStore],
]);
