/**
 * The FHIR uses of the `Prefer` header (RFC 7240): `return=...` on writes, `handling=...` on searches
 * and operations, `respond-async` on a bulk export's kick-off.
 */

export type ReturnPreference = 'minimal' | 'representation' | 'OperationOutcome';
export type HandlingPreference = 'strict' | 'lenient';

export interface Preferences {
  return?: ReturnPreference;
  /** `strict`: an unknown or unsupported search parameter is an error instead of being ignored. */
  handling?: HandlingPreference;
  /** `respond-async`: the client expects a 202 and a status URL (what a bulk export requires). */
  respondAsync?: true;
}

/** The values each preference takes, by their lower case: clients send `return=operationoutcome` too. */
const RETURN_VALUES = new Map<string, ReturnPreference>([
  ['minimal', 'minimal'],
  ['representation', 'representation'],
  ['operationoutcome', 'OperationOutcome'],
]);
const HANDLING_VALUES = new Map<string, HandlingPreference>([
  ['strict', 'strict'],
  ['lenient', 'lenient'],
]);

export function parsePrefer(header: string | undefined): Preferences {
  const out: Preferences = {};
  for (const part of (header ?? '').split(/[,;]/)) {
    const [rawName, rawValue] = part.split('=', 2).map((s) => s?.trim().replace(/^"|"$/g, ''));
    const name = rawName?.toLowerCase();
    const value = rawValue?.toLowerCase() ?? '';
    const returned = name === 'return' ? RETURN_VALUES.get(value) : undefined;
    const handling = name === 'handling' ? HANDLING_VALUES.get(value) : undefined;
    if (name === 'respond-async' && rawValue === undefined) out.respondAsync = true;
    if (returned) out.return = returned;
    if (handling) out.handling = handling;
  }
  return out;
}
