/** Small error translations shared by the management modules. */
import { HttpError, isHttpError } from '../http/errors';

/** Rethrows a directory error about the account `email` as one about `telecomEmail`, this API's name for it. */
export function asTelecomEmail(e: unknown): never {
  if (isHttpError(e) && e.fields?.email) throw new HttpError(e.status, e.message, undefined, { fields: { telecomEmail: e.fields.email } });
  throw e;
}

/** For deletions that may find their target gone already (a retry, a concurrent deletion). */
export function ignoreNotFound(e: unknown): void {
  if (!(isHttpError(e) && e.status === 404)) throw e;
}
