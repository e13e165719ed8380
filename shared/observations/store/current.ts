/** The observation store this process uses (see `installed`): DynamoDB unless a handler's builder or a test installs another. */
import { installed } from '../../store/installed';
import { blockObservationStore } from './blocks';
import type { ObservationStore } from './port';

const holder = installed<ObservationStore>(blockObservationStore);

export const observationStore = holder.current;
export const useObservationStore = holder.use;
