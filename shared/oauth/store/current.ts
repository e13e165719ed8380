/** The OAuth store this process uses (see `installed`): DynamoDB unless a handler's builder or a test installs another. */
import { installed } from '../../store/installed';
import { dynamoOAuthStore } from './dynamo';
import type { OAuthStore } from './port';

const holder = installed<OAuthStore>(dynamoOAuthStore);

export const oauthStore = holder.current;
export const useOAuthStore = holder.use;
