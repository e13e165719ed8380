/**
 * The items of codes and grants on the directory table, and the writes that store them: a code is
 * stored on its own or with an invitation's redemption, a grant with the code that starts it.
 */
import { putNew, transact, withoutKeys, type Item, type Write } from '../../store/directory-table';
import { keys } from '../../store/directory-keys';
import { conflict, type HttpError } from '../../http/errors';
import { codeCollision, grantCollision, refreshTokenCollision, type Grant, type RefreshTokenRecord, type StoredCode } from './port';

export function newCodeWrite(code: StoredCode): Write {
  return putNew({ ...keys.authorizationCode(code.codeHash), ...code }, codeCollision);
}

/** A refresh token's record, beside the token's hash (the hash itself is the key). */
export function newTokenWrite(hash: string, token: RefreshTokenRecord): Write {
  return putNew({ ...keys.refreshToken(hash), grantId: token.grantId, issuedAt: token.issuedAt, expiresAt: token.expiresAt }, refreshTokenCollision);
}

/** A new grant and the record of its first refresh token. */
export function newGrantWrites(grant: Grant): Write[] {
  return [
    putNew({ ...keys.grant(grant.grantId), ...grant }, grantCollision),
    newTokenWrite(grant.currentHash, { grantId: grant.grantId, issuedAt: grant.createdAt, expiresAt: grant.expiresAt }),
  ];
}

/** A record's own fields: the item without its key. */
export const fieldsOf = <T>(item: Item): T => withoutKeys(item) as T;

/**
 * Runs the writes `build` makes as one transaction: `false` when the condition that failed is the
 * one given `refused` (a step already taken), any other failure thrown as it comes.
 */
export async function transactUnlessRefused(build: (refused: () => HttpError) => Write[]): Promise<boolean> {
  const refusal = conflict('Refused by its condition.');
  try {
    await transact(build(() => refusal));
    return true;
  } catch (e) {
    if (e === refusal) return false;
    throw e;
  }
}
