/** RFC 6749 §5.2 errors as HttpErrors (the renderer writes `{error, error_description}` under `/o/`). */
import { HttpError } from '../http/errors';

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'unsupported_token_type'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'temporarily_unavailable';

export function oauthError(code: OAuthErrorCode, description: string, init: { status?: number; headers?: Record<string, string> } = {}): HttpError {
  const status = init.status ?? (code === 'invalid_client' ? 401 : 400);
  return new HttpError(status, description, status === 401 ? 'login' : 'invalid', { oauthError: code, ...(init.headers ? { headers: init.headers } : {}) });
}
