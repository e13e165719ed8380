/**
 * The unit a statistic is shown in, per value group (docs/api.md#statistics-observationstats): the member's
 * only allowed unit when it has one (a heart rate in beats/min), else a preferred unit of the
 * group's dimension (PREFERRED, by the dimension's canonical unit), else the member's first allowed
 * unit of that dimension, else the canonical unit itself. A group of a unit with no UCUM form is
 * shown in that unit, as uploaded.
 *
 * Converting back from the canonical unit multiplies by the table's factors (15 significant
 * digits), so a shown value is rounded to 12 significant digits: 72 beats/min is shown as 72, not
 * 72.00000000000001.
 */
import { canonicalOf, UCUM_SYSTEM, ucumOf, type QuantityMember } from '../../omh/quantities';
import type { ValueGroup } from './day-summary';
import type { Scaling } from './statistics';

/** The preferred display unit (UCUM) of a dimension, when the member allows several units of it. */
const PREFERRED: readonly string[] = ['kg', 'Cel', 'km', 'min', 'mg/dL', 'mmol/L', 'L', 'km/h'];

export interface DisplayUnit {
  /** The unit's text: the member's OMH label when it has one for the unit, else the UCUM code. */
  label: string;
  /** UCUM code; absent for a unit with no UCUM form. */
  ucum?: string;
  factor: number;
  offset: number;
}

const sameDimension = (ucum: string | undefined, canonical: string) => ucum !== undefined && canonicalOf(ucum)?.canonical === canonical;

export function displayUnitOf(group: ValueGroup, member: QuantityMember | undefined): DisplayUnit {
  if (!group.converted) return { label: group.unit, factor: 1, offset: 0 };
  const allowed = member?.units ?? [];
  const labelOf = (ucum: string) => allowed.find((u) => ucumOf(u) === ucum) ?? ucum;
  const single = allowed.length === 1 ? ucumOf(allowed[0]!) : undefined;
  const ucum =
    (single !== undefined && sameDimension(single, group.unit) ? single : undefined) ??
    PREFERRED.find((u) => sameDimension(u, group.unit)) ??
    allowed.map(ucumOf).find((u) => sameDimension(u, group.unit)) ??
    group.unit;
  const { factor, offset } = canonicalOf(ucum) ?? { factor: 1, offset: 0 };
  return { label: labelOf(ucum), ucum, factor, offset };
}

const shown = (x: number) => Number(x.toPrecision(12));

/** A statistic of the group, from its unit into the display unit. */
export function inDisplayUnit(value: number, scaling: Scaling, unit: DisplayUnit, count: number): number {
  switch (scaling) {
    case 'count':
      return value;
    case 'value':
      return shown((value - unit.offset) / unit.factor);
    case 'sum':
      return shown((value - count * unit.offset) / unit.factor);
    case 'difference':
      return shown(value / unit.factor);
    case 'square':
      return shown(value / (unit.factor * unit.factor));
  }
}

/**
 * A count as a FHIR Quantity: dimensionless, UCUM `1`, with no `unit` text (a count has no unit to
 * show; R5's examples code a unitless quantity the same way, system and code only).
 */
export const countQuantity = (value: number): Record<string, unknown> => ({ value, system: UCUM_SYSTEM, code: '1' });

/** The unit of a shown statistic as text: none for a count, the square of the unit for a variance, else the unit's label. */
export function unitText(scaling: Scaling, unit: DisplayUnit | undefined): string | undefined {
  if (scaling === 'count' || unit === undefined) return undefined;
  return scaling === 'square' ? `(${unit.label})²` : unit.label;
}

/** The FHIR Quantity of a shown statistic: a count as `countQuantity`, a variance in the square of the unit (text only). */
export function quantityOf(value: number, scaling: Scaling, unit: DisplayUnit | undefined): Record<string, unknown> {
  if (scaling === 'count' || unit === undefined) return countQuantity(value);
  const text = unitText(scaling, unit);
  return scaling === 'square' || unit.ucum === undefined ? { value, unit: text } : { value, unit: text, system: UCUM_SYSTEM, code: unit.ucum };
}
