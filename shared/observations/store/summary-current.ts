/** The day summaries' store this process uses (see `installed`): DynamoDB unless a handler's builder or a test installs another. */
import { installed } from '../../store/installed';
import { dynamoSummaryStore } from './dynamo-summaries';
import type { SummaryStore } from './summary-port';

const holder = installed<SummaryStore>(dynamoSummaryStore);

export const summaryStore = holder.current;
export const useSummaryStore = holder.use;
