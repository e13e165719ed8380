/** The auxiliary store this process uses (see `installed`): DynamoDB unless a handler's builder or a test installs another. */
import { installed } from '../../store/installed';
import { dynamoAuxiliaryStore } from './dynamo';
import type { AuxiliaryStore } from './port';

const holder = installed<AuxiliaryStore>(dynamoAuxiliaryStore);

export const auxiliaryStore = holder.current;
export const useAuxiliaryStore = holder.use;
