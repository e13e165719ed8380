/** Types shared by the quantities module (shared/omh/quantities.ts), its table and its UCUM adapter. */

export interface StandardCoding {
  system: string;
  code: string;
  display: string;
}

/** A unit's canonical form: value_canonical = value * factor + offset, in `canonical` (UCUM code of the dimension's base units). */
export interface CanonicalUnit {
  canonical: string;
  factor: number;
  offset: number;
}
