/** The observation store contract (test/contract/observation-store.ts) against DynamoDB Local and the in-memory twin. */
import { blockObservationStore } from '../../../shared/observations/store/blocks';
import { memoryObservationStore } from '../../../shared/observations/store/memory';
import { observationStoreContract } from '../../contract/observation-store';

observationStoreContract([
  ['dynamodb', () => blockObservationStore],
  ['memory', memoryObservationStore],
]);
