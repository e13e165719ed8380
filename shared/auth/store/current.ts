/** The scope reads this process uses (see `installed`): DynamoDB unless a handler's builder or a test installs another. */
import { installed } from '../../store/installed';
import { dynamoScopeStore } from './dynamo';
import type { ScopeStore } from './port';

const holder = installed<ScopeStore>(dynamoScopeStore);

export const scopeStore = holder.current;
export const useScopeStore = holder.use;
