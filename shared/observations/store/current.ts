/** The observation store this process uses (see `installed`): DynamoDB unless a handler's builder or a test installs another. */
import { installed } from '../../store/installed';
import { dynamoObservationStore } from './dynamo';
import type { ObservationStore } from './port';

const holder = installed<ObservationStore>(dynamoObservationStore);

export const observationStore = holder.current;
export const useObservationStore = holder.use;
