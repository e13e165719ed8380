/** The day summaries' store contract (test/contract/summary-store.ts) against DynamoDB Local and the in-memory twin. */
import { dynamoSummaryStore } from '../../../shared/observations/store/dynamo-summaries';
import { memorySummaryStore } from '../../../shared/observations/store/memory-summaries';
import { summaryStoreContract } from '../../contract/summary-store';

summaryStoreContract([
  ['dynamodb', () => dynamoSummaryStore],
  ['memory', memorySummaryStore],
]);
