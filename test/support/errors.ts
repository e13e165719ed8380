/** The status a synchronous call answers: 200 when it returns, the HttpError's status when it throws one (anything else is rethrown). */
import { isHttpError } from '../../shared/http/errors';

export function statusOf(fn: () => unknown): number {
  try {
    fn();
    return 200;
  } catch (e) {
    if (isHttpError(e)) return e.status;
    throw e;
  }
}
