/**
 * The one module that loads the UCUM library (NLM's `@lhncbc/ucum-lhc`): the generator uses it to
 * check every UCUM code and precompute the canonical forms, and the service reaches it only through
 * `canonicalOfAny` (quantities.ts), by dynamic import, for a unit a client names that the generated
 * table lacks. The library and its unit tables stay out of every cold start.
 */
import ucum, { type BaseUnitsAnswer, type UcumUtils } from '@lhncbc/ucum-lhc';
import type { CanonicalUnit } from './types';

let utils: UcumUtils | undefined;

function library(): UcumUtils {
  utils ??= ucum.UcumLhcUtils.getInstance();
  return utils;
}

/** Whether the library knows `code` as a unit (not a unit name or a suggestion: the code itself). */
export function isValidUcum(code: string): boolean {
  try {
    const answer = library().validateUnitString(code);
    return answer.status === 'valid' && answer.unit !== undefined;
  } catch {
    return false;
  }
}

/**
 * Significant digits kept of a factor and offset: the library multiplies decimal definitions in
 * binary (`[in_i]` comes out 0.025400000000000002), and a special unit's (Cel, [degF]) are the
 * difference of two conversions, with less precision still.
 */
const DIGITS = 15;
const SPECIAL_DIGITS = 12;

/**
 * The canonical form of a UCUM code, measured by converting 0, 1 and 100 of it to base units:
 * offset is the image of 0, factor the image of 1 less it. A unit whose conversion is not of that
 * form (decibels, pH: logarithmic) or that the library cannot convert (arbitrary units) has none.
 */
export function canonicalFromLibrary(code: string): CanonicalUnit | undefined {
  if (!isValidUcum(code)) return undefined;
  let at0: BaseUnitsAnswer, at1: BaseUnitsAnswer, at100: BaseUnitsAnswer;
  try {
    [at0, at1, at100] = [0, 1, 100].map((value) => library().convertToBaseUnits(code, value)) as [BaseUnitsAnswer, BaseUnitsAnswer, BaseUnitsAnswer];
  } catch {
    return undefined;
  }
  const images = [at0.magnitude, at1.magnitude, at100.magnitude];
  if ([at0, at1, at100].some((a) => a.status !== 'succeeded') || !images.every((m) => typeof m === 'number' && Number.isFinite(m))) return undefined;
  const [y0, y1, y100] = images as [number, number, number];
  const special = at1.fromUnitIsSpecial === true;
  const round = (n: number) => Number(n.toPrecision(special ? SPECIAL_DIGITS : DIGITS));
  const factor = round(y1 - y0);
  const offset = round(y0);
  if (factor === 0 || Math.abs(offset + 100 * factor - y100) > 1e-9 * Math.max(1, Math.abs(y100))) return undefined;
  return { canonical: canonicalCode(at1.unitToExp ?? {}), factor, offset };
}

/** `{m: -1, s: -2, g: 1}` -> `m-1.s-2.g`, in the library's order of base units; no dimension: `1`. */
function canonicalCode(exponents: Record<string, number>): string {
  const terms = Object.entries(exponents)
    .filter(([, exponent]) => exponent !== 0)
    .map(([base, exponent]) => (exponent === 1 ? base : `${base}${exponent}`));
  return terms.length > 0 ? terms.join('.') : '1';
}
