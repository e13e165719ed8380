/**
 * The scopes this server grants. They describe the token (SMART and OpenID Connect clients read
 * them); access itself is decided by who the caller is, through `shared/auth/scope.ts`, so a scope
 * never widens what an account may see.
 */
import { SYSTEM_SCOPE } from '../auth/claims';
import type { UserKind } from '../directory/model';
import { oauthError } from './errors';

/** Scopes a client may ask for; anything else is left out of the grant (RFC 6749 §3.3). */
export const SUPPORTED_SCOPES = [
  'openid',
  'email',
  'profile',
  'fhirUser',
  'offline_access',
  'launch/patient',
  'patient/*.cruds',
  'patient/*.rs',
  'user/*.cruds',
  'user/*.rs',
] as const;

/** What a grant carries when the client names no scope. */
export const DEFAULT_SCOPE = 'openid email';

/** RFC 6749 §3.3: scope tokens are printable ASCII without space, `"` or `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
const MAX_SCOPE_LENGTH = 1024;

/** The scope tokens of a request (400 `invalid_scope` for malformed text). */
export function parseScope(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  if (raw.length > MAX_SCOPE_LENGTH) throw oauthError('invalid_scope', `The scope is longer than ${MAX_SCOPE_LENGTH} characters.`);
  const tokens = raw.split(' ').filter(Boolean);
  if (!tokens.every((t) => SCOPE_TOKEN.test(t))) throw oauthError('invalid_scope', 'The scope contains characters a scope may not hold.');
  return [...new Set(tokens)];
}

/** The scopes granted for a request: the supported ones asked for, or the default; patient-only scopes only to patients. */
export function grantedScope(raw: string | undefined, kind: UserKind, fallback = DEFAULT_SCOPE): string {
  const asked = parseScope(raw);
  const supported = new Set<string>(SUPPORTED_SCOPES);
  const fits = (s: string) => supported.has(s) && (kind === 'patient' || !(s.startsWith('patient/') || s === 'launch/patient'));
  const granted = (asked.length > 0 ? asked : fallback.split(' ')).filter(fits);
  return granted.join(' ');
}

/** A refresh may narrow the grant's scope, never widen it (RFC 6749 §6). */
export function narrowedScope(raw: string | undefined, granted: string): string {
  const asked = parseScope(raw);
  if (asked.length === 0) return granted;
  const have = new Set(granted.split(' '));
  const extra = asked.filter((s) => !have.has(s));
  if (extra.length > 0) throw oauthError('invalid_scope', `The scope ${extra.join(' ')} was not granted.`);
  return asked.join(' ');
}

/** The system scope discovery names (the others are the same per type). */
export const SYSTEM_SCOPES_ADVERTISED = ['system/*.rs'] as const;

/** The scopes granted to a backend service: the system scopes asked for; 400 `invalid_scope` when none is. */
export function grantedSystemScope(raw: string | undefined): string {
  const asked = parseScope(raw);
  const granted = asked.filter((s) => SYSTEM_SCOPE.test(s));
  if (granted.length === 0) {
    throw oauthError('invalid_scope', 'A backend service asks for system/*.rs, or system/<Type>.rs for some resource types (read and search).');
  }
  return granted.join(' ');
}
