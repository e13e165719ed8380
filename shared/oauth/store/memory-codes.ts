/**
 * The in-memory twin of authorization codes, grants and refresh tokens: one state, since using a
 * code starts a grant. Each step checks every condition before it writes anything, and the twin
 * runs one call at a time with no await inside a step, so a step is all or nothing as a
 * transaction is; conditions are checked in the order the DynamoDB adapter writes them, so the
 * same refusal wins.
 */
import { copy, holding, readCopy } from '../../store/memory';
import { codeCollision, grantCollision, refreshTokenCollision, type AuthorizationCodeRecords, type Grant, type GrantRecords, type RefreshTokenRecord, type StoredCode } from './port';

export interface MemoryCodesAndGrants {
  codes: AuthorizationCodeRecords;
  grants: GrantRecords;
  /** Refuses a code that cannot be stored; answers the write that stores it (for a step of another family). */
  newCode(code: StoredCode): () => void;
}

export function memoryCodesAndGrants(): MemoryCodesAndGrants {
  const codeRows = new Map<string, StoredCode>();
  const grantRows = new Map<string, Grant>();
  const tokenRows = new Map<string, RefreshTokenRecord>();

  const newCode = (code: StoredCode) => {
    if (codeRows.has(code.codeHash)) throw codeCollision();
    return () => void codeRows.set(code.codeHash, copy(code));
  };
  const newToken = (hash: string, token: RefreshTokenRecord) => {
    if (tokenRows.has(hash)) throw refreshTokenCollision();
    return () => void tokenRows.set(hash, { grantId: token.grantId, issuedAt: token.issuedAt, expiresAt: token.expiresAt });
  };
  const newGrant = (grant: Grant) => {
    if (grantRows.has(grant.grantId)) throw grantCollision();
    const storeToken = newToken(grant.currentHash, { grantId: grant.grantId, issuedAt: grant.createdAt, expiresAt: grant.expiresAt });
    return () => {
      grantRows.set(grant.grantId, copy(grant));
      storeToken();
    };
  };
  const state: MemoryCodesAndGrants = {
    newCode,
    codes: {
      insert: async (code) => newCode(code)(),
      get: readCopy(codeRows),
      consume: async (codeHash, usedAt, grant) => {
        const code = codeRows.get(codeHash);
        if (!code || code.usedAt !== undefined) return false;
        const storeGrant = newGrant(grant);
        code.usedAt = usedAt;
        storeGrant();
        return true;
      },
    },
    grants: {
      get: readCopy(grantRows),
      token: readCopy(tokenRows),
      revoke: async (grantId, at) => {
        const grant = grantRows.get(grantId);
        if (grant && grant.revokedAt === undefined) grant.revokedAt = at;
      },
      rotate: async (grantId, presentedHash, next) => {
        const grant = grantRows.get(grantId);
        if (!grant || grant.currentHash !== presentedHash || grant.revokedAt !== undefined) return false;
        const storeToken = newToken(next.hash, next);
        grant.currentHash = next.hash;
        grant.expiresAt = next.expiresAt;
        storeToken();
        return true;
      },
    },
  };
  holding(state.codes, { codes: () => codeRows });
  holding(state.grants, { grants: () => grantRows, refreshTokens: () => tokenRows });
  return state;
}
