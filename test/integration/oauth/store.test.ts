/** The OAuth store contract (test/contract/oauth-store.ts) against DynamoDB Local and the in-memory twin. */
import { dynamoOAuthStore } from '../../../shared/oauth/store/dynamo';
import { memoryOAuthStore } from '../../../shared/oauth/store/memory';
import { oauthStoreContract } from '../../contract/oauth-store';

oauthStoreContract([
  ['dynamodb', () => dynamoOAuthStore],
  ['memory', memoryOAuthStore],
]);
