/** The brands store this process uses (see `installed`): DynamoDB unless a handler's builder or a test installs another. */
import { installed } from '../../store/installed';
import { dynamoBrandStore } from './dynamo';
import type { BrandStore } from './port';

const holder = installed<BrandStore>(dynamoBrandStore);

export const brandStore = holder.current;
export const useBrandStore = holder.use;
