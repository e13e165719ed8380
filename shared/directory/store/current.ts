/** The directory store this process uses (see `installed`): DynamoDB unless a handler's builder or a test installs another. */
import { installed } from '../../store/installed';
import { dynamoDirectoryStore } from './dynamo';
import type { DirectoryStore } from './port';

const holder = installed<DirectoryStore>(dynamoDirectoryStore);

export const directoryStore = holder.current;
export const useDirectoryStore = holder.use;
