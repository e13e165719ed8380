/** Counting from the day summaries (test/contract/summary-counts.ts) against DynamoDB Local and the in-memory twins. */
import { blockObservationStore } from '../../../shared/observations/store/blocks';
import { dynamoSummaryStore } from '../../../shared/observations/store/dynamo-summaries';
import { memoryObservationStore } from '../../../shared/observations/store/memory';
import { memorySummaryStore } from '../../../shared/observations/store/memory-summaries';
import { summaryCountsContract } from '../../contract/summary-counts';

summaryCountsContract([
  ['dynamodb', () => ({ observations: blockObservationStore, summaries: dynamoSummaryStore })],
  ['memory', () => ({ observations: memoryObservationStore(), summaries: memorySummaryStore() })],
]);
