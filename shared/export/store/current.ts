/** The export store this process uses (see `installed`): DynamoDB, S3 and SQS unless the local runtime or a test installs another. */
import { installed } from '../../store/installed';
import { dynamoExportStore } from './dynamo';
import type { ExportStore } from './port';

const holder = installed<ExportStore>(dynamoExportStore);

export const exportStore = holder.current;
export const useExportStore = holder.use;
