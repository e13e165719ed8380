/**
 * The OAuth store port in memory: a twin of the DynamoDB adapter for tests that need no tables.
 * The contract suite (test/contract/oauth-store.ts) holds it to the same behaviour. Each call makes
 * a new, empty store.
 */
import { memoryClientAssertions } from './memory-client-assertions';
import { memoryCodesAndGrants } from './memory-codes';
import { memoryInvitations } from './memory-invitations';
import { memoryWindowCounts } from './memory-registrations';
import { memorySignIns } from './memory-sign-ins';
import { memoryApprovals, memorySessions } from './memory-sessions';
import type { OAuthStore } from './port';

export function memoryOAuthStore(): OAuthStore {
  const { codes, grants, newCode } = memoryCodesAndGrants();
  return {
    codes,
    grants,
    invitations: memoryInvitations(newCode),
    signIns: memorySignIns(),
    clientAssertions: memoryClientAssertions(),
    registrations: memoryWindowCounts('registrations'),
    passwordAttempts: memoryWindowCounts('passwordAttempts'),
    sessions: memorySessions(),
    approvals: memoryApprovals(),
  };
}
