/**
 * Glucose in the two units a sensor reports it in. The service converts units through their UCUM
 * canonical forms (shared/omh/quantities.ts): mg/dL is a mass concentration and mmol/L a substance
 * concentration, two dimensions UCUM does not convert between without the substance's molar mass.
 * That one fact is glucose's own and lives here: C6H12O6, 180.156 g/mol, so 1 mmol/L is 18.0156
 * mg/dL. Every other step is the table's (the unit recognised by its UCUM code, its value taken to
 * the dimension's canonical unit and back).
 *
 * Everything in shared/cgm/ computes in mg/dL; mmol/L is converted on the way in and shown on the
 * way out.
 */
import { canonicalOf, ucumOf } from '../omh/quantities';

/** Grams per mole of glucose (C6H12O6). */
export const GLUCOSE_MOLAR_MASS = 180.156;

/** mg/dL in 1 mmol/L of glucose: the molar mass in mg/mmol, per decilitre (a tenth of a litre). */
export const MGDL_PER_MMOLL = GLUCOSE_MOLAR_MASS / 10;

/** The units a glucose is reported and shown in (UCUM codes). */
export type GlucoseUnit = 'mg/dL' | 'mmol/L';

export const GLUCOSE_UNITS: readonly GlucoseUnit[] = ['mg/dL', 'mmol/L'];

/** The canonical form of each glucose unit: the dimension a value's unit is recognised by. */
const MASS = canonicalOf('mg/dL')!;
const SUBSTANCE = canonicalOf('mmol/L')!;

/**
 * A glucose value in mg/dL, from a value in `unit` (an OMH label or a UCUM code of a mass or
 * substance concentration: `mg/dL`, `mmol/L`); undefined for a unit of neither dimension.
 */
export function mgdlOf(value: number, unit: string): number | undefined {
  const ucum = ucumOf(unit);
  const canonical = ucum === undefined ? undefined : canonicalOf(ucum);
  if (canonical?.canonical === MASS.canonical) return value * (canonical.factor / MASS.factor);
  if (canonical?.canonical === SUBSTANCE.canonical) return value * (canonical.factor / SUBSTANCE.factor) * MGDL_PER_MMOLL;
  return undefined;
}

/** A glucose value given in mg/dL, in `unit`. */
export const glucoseIn = (mgdl: number, unit: GlucoseUnit): number => (unit === 'mg/dL' ? mgdl : mgdl / MGDL_PER_MMOLL);

/** A glucose value (mg/dL) written in `unit` without the unit, as reports and sensors show it: whole mg/dL, mmol/L to a tenth. */
export const glucoseText = (mgdl: number, unit: GlucoseUnit): string => (unit === 'mg/dL' ? mgdl.toFixed(0) : glucoseIn(mgdl, unit).toFixed(1));

/** A glucose value given in mg/dL as it is shown in `unit`: mg/dL to one decimal, mmol/L to two (the guide's examples). */
export const shownGlucose = (mgdl: number, unit: GlucoseUnit): number => Number(glucoseIn(mgdl, unit).toFixed(unit === 'mg/dL' ? 1 : 2));
