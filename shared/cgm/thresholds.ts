/**
 * The glucose ranges and the targets of the International Consensus on Time in Range (Battelino et
 * al., Diabetes Care 2019), as the service applies them (docs/cgm.md#ranges-and-targets).
 *
 * Five bands split every reading once, so their shares add up to 100%:
 *
 * | band       | consensus, mg/dL | consensus, mmol/L | here: mg/dL value v |
 * |------------|------------------|-------------------|---------------------|
 * | very low   | < 54             | < 3.0             | v < 54              |
 * | low        | 54-69            | 3.0-3.8           | 54 <= v < 70        |
 * | target     | 70-180           | 3.9-10.0          | 70 <= v < 181       |
 * | high       | 181-250          | 10.1-13.9         | 181 <= v < 251      |
 * | very high  | > 250            | > 13.9            | v >= 251            |
 *
 * The edges are half-open at 54, 70, 181 and 251 mg/dL so that one rule agrees with the consensus
 * in both units: exactly for whole mg/dL values, and for mmol/L values at the 0.1 mmol/L a sensor
 * reports (10.0 mmol/L is 180.16 mg/dL: in range, as the consensus says; 13.9 mmol/L is 250.4:
 * high; 3.0 mmol/L is 54.05: low, not very low).
 */
import type { GlucoseUnit } from './units';

/** The bands, lowest first. */
export const BANDS = ['veryLow', 'low', 'target', 'high', 'veryHigh'] as const;
export type Band = (typeof BANDS)[number];

/** The lower edge (mg/dL, inclusive) of each band after the first, in BANDS order. */
const LOWER_EDGES_MGDL = [54, 70, 181, 251] as const;

/** The index into BANDS of a glucose value (mg/dL). */
export function bandIndexOf(mgdl: number): number {
  let index = 0;
  while (index < LOWER_EDGES_MGDL.length && mgdl >= LOWER_EDGES_MGDL[index]!) index += 1;
  return index;
}

/** The figures a target judges: shares of the readings (%) in bands, and the coefficient of variation (%). */
export type TargetMetric = 'timeInRange' | 'timeBelow70' | 'timeBelow54' | 'timeAbove180' | 'timeAbove250' | 'cv';

/** The bands whose shares add up to each time metric. */
export const BANDS_OF: Readonly<Record<Exclude<TargetMetric, 'cv'>, readonly Band[]>> = {
  timeInRange: ['target'],
  timeBelow70: ['veryLow', 'low'],
  timeBelow54: ['veryLow'],
  timeAbove180: ['high', 'veryHigh'],
  timeAbove250: ['veryHigh'],
};

export interface Target {
  metric: TargetMetric;
  /** How the figure must compare with `percent` to meet the target. */
  comparator: '>' | '<' | '<=';
  percent: number;
}

/** The consensus targets for most adults with type 1 or type 2 diabetes: the default. */
export const CONSENSUS_TARGETS: readonly Target[] = [
  { metric: 'timeInRange', comparator: '>', percent: 70 },
  { metric: 'timeBelow70', comparator: '<', percent: 4 },
  { metric: 'timeBelow54', comparator: '<', percent: 1 },
  { metric: 'timeAbove180', comparator: '<', percent: 25 },
  { metric: 'timeAbove250', comparator: '<', percent: 5 },
  { metric: 'cv', comparator: '<=', percent: 36 },
];

/** The consensus targets for older people or those at high risk of hypoglycaemia. */
export const OLDER_OR_HIGH_RISK_TARGETS: readonly Target[] = [
  { metric: 'timeInRange', comparator: '>', percent: 50 },
  { metric: 'timeBelow70', comparator: '<', percent: 1 },
  { metric: 'timeAbove250', comparator: '<', percent: 10 },
  { metric: 'cv', comparator: '<=', percent: 36 },
];

/** The target sets by the names a request gives them: `standard` (the default) and `older-or-high-risk`. */
export const TARGET_SETS: ReadonlyMap<string, readonly Target[]> = new Map([
  ['standard', CONSENSUS_TARGETS],
  ['older-or-high-risk', OLDER_OR_HIGH_RISK_TARGETS],
]);
export type TargetSetName = 'standard' | 'older-or-high-risk';
export const DEFAULT_TARGET_SET: TargetSetName = 'standard';

/** Whether a figure meets a target. */
export function meets(target: Target, value: number): boolean {
  switch (target.comparator) {
    case '>':
      return value > target.percent;
    case '<':
      return value < target.percent;
    case '<=':
      return value <= target.percent;
  }
}

/**
 * The data sufficiency rule of the consensus: a period of at least 14 days, with at least 70% of
 * the readings the sensor would have taken over it.
 */
export const SUFFICIENT_DAYS = 14;
export const SUFFICIENT_ACTIVE_PERCENT = 70;

/** What each figure a target judges is, in words, with the consensus's thresholds in either unit. */
export const METRIC_LABELS: Readonly<Record<TargetMetric, Readonly<Record<GlucoseUnit, string>>>> = {
  timeInRange: { 'mg/dL': 'Time in range (70-180 mg/dL)', 'mmol/L': 'Time in range (3.9-10.0 mmol/L)' },
  timeBelow70: { 'mg/dL': 'Time below 70 mg/dL', 'mmol/L': 'Time below 3.9 mmol/L' },
  timeBelow54: { 'mg/dL': 'Time below 54 mg/dL', 'mmol/L': 'Time below 3.0 mmol/L' },
  timeAbove180: { 'mg/dL': 'Time above 180 mg/dL', 'mmol/L': 'Time above 10.0 mmol/L' },
  timeAbove250: { 'mg/dL': 'Time above 250 mg/dL', 'mmol/L': 'Time above 13.9 mmol/L' },
  cv: { 'mg/dL': 'Coefficient of variation', 'mmol/L': 'Coefficient of variation' },
};
