/**
 * The scopes "Send to my hospital" asks for (docs/portal.md#sending-to-the-hospital), in the scope
 * syntax the hospital's authorization server declares in its SMART discovery document
 * (`{iss}/.well-known/smart-configuration`). The CGM guide names SMART v2 scopes (`.cu`: create and
 * update); a server that knows only SMART v1 scopes does not understand them and would refuse the
 * request or grant nothing, so it is asked for their v1 equivalents (`.write`). A server that says
 * nothing about its syntax, or whose document cannot be read, is asked in v2, as the guide does.
 */
import { isObject } from '../json';

/** SMART App Launch's two scope syntaxes: v1 (`.read`, `.write`, `.*`) and v2 (`.c`, `.r`, `.u`, `.d`, `.s`, in that order). */
export type ScopeSyntax = 'v1' | 'v2';

/**
 * The launch scopes (the patient context, who signed in) and the writes of the records sent: create
 * and update in v2; in v1, `write` (which also lets delete: v1 has nothing narrower).
 */
const sendScopesWith = (permission: string) => `openid fhirUser launch/patient patient/Observation.${permission} patient/DiagnosticReport.${permission}`;

/** The send's scopes in each syntax. */
export const SEND_SCOPES: Readonly<Record<ScopeSyntax, string>> = { v2: sendScopesWith('cu'), v1: sendScopesWith('write') };

/** A clinical data scope (`patient/Observation.rs?category=...`): its permission part, else undefined. */
const CLINICAL_SCOPE = /^(?:patient|user|system)\/(?:\*|[A-Za-z]+)\.([^?\s]+)(?:\?\S*)?$/;

/** The syntax a listed scope is written in; undefined for other scopes (`openid`, `launch/patient`) and unknown permissions. */
function syntaxOfScope(scope: string): ScopeSyntax | undefined {
  const permission = CLINICAL_SCOPE.exec(scope)?.[1];
  if (permission === undefined) return undefined;
  if (permission === 'read' || permission === 'write' || permission === '*') return 'v1';
  return /^c?r?u?d?s?$/.test(permission) ? 'v2' : undefined;
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/**
 * The scope syntax to ask a hospital in, from its discovery document (as parsed, or undefined when
 * it could not be read): v2 when its `capabilities` include `permission-v2` or its
 * `scopes_supported` list a v2 scope; else v1 when it declares `permission-v1` or lists v1 scopes;
 * else v2. A server declaring both syntaxes is asked in v2.
 */
export function scopeSyntax(discovery: unknown): ScopeSyntax {
  if (!isObject(discovery)) return 'v2';
  const capabilities = strings(discovery.capabilities);
  const listed = strings(discovery.scopes_supported).map(syntaxOfScope);
  if (capabilities.includes('permission-v2') || listed.includes('v2')) return 'v2';
  if (capabilities.includes('permission-v1') || listed.includes('v1')) return 'v1';
  return 'v2';
}

/** The scopes of a send to a hospital with this discovery document. */
export const sendScopes = (discovery: unknown): string => SEND_SCOPES[scopeSyntax(discovery)];
