/** The FHIR uses of the `Prefer` header (RFC 7240): `return=...` on writes, `handling=...` on searches. */

export type ReturnPreference = 'minimal' | 'representation' | 'OperationOutcome';

export interface Preferences {
  return?: ReturnPreference;
  /** `strict`: an unknown or unsupported search parameter is an error instead of being ignored. */
  handling?: 'strict' | 'lenient';
}

export function parsePrefer(header: string | undefined): Preferences {
  const out: Preferences = {};
  for (const part of (header ?? '').split(/[,;]/)) {
    const [rawName, rawValue] = part.split('=', 2).map((s) => s?.trim().replace(/^"|"$/g, ''));
    const name = rawName?.toLowerCase();
    if (name === 'return' && (rawValue === 'minimal' || rawValue === 'representation' || rawValue === 'OperationOutcome')) out.return = rawValue;
    if (name === 'handling' && (rawValue === 'strict' || rawValue === 'lenient')) out.handling = rawValue;
  }
  return out;
}
