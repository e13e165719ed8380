/**
 * The glucose page's ambulatory glucose profile chart as geometry for an inline SVG: the same
 * scales, curves and colours as the AGP report's chart (shared/cgm/report/curves.ts, layout.ts), so
 * the page and the PDF draw one profile one way, and a sentence saying what it shows for those who
 * do not see it. The geometry is in mg/dL; the glucose labels and the sentence are in the unit the
 * patient reads (written as the report writes them: whole mg/dL, mmol/L to a tenth). Pure: the page
 * turns it into SVG elements.
 */
import type { AgpBin } from '../cgm/agp';
import { agpPaths, GLUCOSE_AXIS_TOP_MGDL, hourTicks, scalesOf, THRESHOLDS_MGDL } from '../cgm/report/curves';
import { COLOURS } from '../cgm/report/layout';
import { clockOf } from '../cgm/time-of-day';
import { glucoseText, type GlucoseUnit } from '../cgm/units';

/** The chart's box in SVG user units; the page scales it to its width. */
export const AGP_CHART_SIZE = { width: 360, height: 230 } as const;
/** Room for the glucose labels on the left and the hours below. */
const MARGIN = { left: 34, right: 16, top: 8, bottom: 20 } as const;

export interface AgpChart {
  width: number;
  height: number;
  /** Where the plot sits; paths and positions below are inside it. */
  plot: { x: number; y: number; width: number; height: number };
  /** The target band (70-180 mg/dL, 3.9-10.0 mmol/L). */
  targetBand: { y: number; height: number };
  paths: { outer: string; inner: string; median: string };
  /** y of the target band's edges (solid) and of the very low and very high thresholds (dashed). */
  targetLines: number[];
  dashedLines: number[];
  hours: Array<{ x: number; label: string }>;
  glucose: Array<{ y: number; label: string; strong: boolean }>;
  colours: { targetBand: string; target: string; outer: string; inner: string; median: string; rule: string; grid: string; text: string };
  /** What the chart shows, in words. */
  description: string;
}

const held = (bins: readonly AgpBin[]) => bins.filter((b) => b.percentiles !== undefined).map((b) => b.percentiles!);

/** The target range in words: `70 to 180 mg/dL`, `3.9 to 10.0 mmol/L`. */
export const targetRangeWords = (unit: GlucoseUnit): string => `${glucoseText(THRESHOLDS_MGDL.low, unit)} to ${glucoseText(THRESHOLDS_MGDL.high, unit)} ${unit}`;

/** The chart in words: where the median, the middle half and 90% of the readings lie over the day. */
export function agpDescription(bins: readonly AgpBin[], unit: GlucoseUnit = 'mg/dL'): string {
  const figures = held(bins);
  if (figures.length === 0) return 'No glucose readings to draw.';
  const low = (p: 5 | 25 | 50) => glucoseText(Math.min(...figures.map((f) => f[p])), unit);
  const high = (p: 50 | 75 | 95) => glucoseText(Math.max(...figures.map((f) => f[p])), unit);
  return (
    `Ambulatory glucose profile: over the time of day, your median glucose ranged from ${low(50)} to ${high(50)} ${unit}; ` +
    `the middle half of your readings lay between ${low(25)} and ${high(75)} ${unit}, and 90% of them between ${low(5)} and ${high(95)} ${unit}. ` +
    `The target range is ${targetRangeWords(unit)}.`
  );
}

/** The chart of bins in mg/dL, labelled in `unit`. */
export function agpChart(bins: readonly AgpBin[], binMinutes: number, unit: GlucoseUnit = 'mg/dL'): AgpChart {
  const { width, height } = AGP_CHART_SIZE;
  const plot = { x: MARGIN.left, y: MARGIN.top, width: width - MARGIN.left - MARGIN.right, height: height - MARGIN.top - MARGIN.bottom };
  const scales = scalesOf(plot.width, plot.height);
  const paths = agpPaths(bins, binMinutes, scales);
  const y = (mgdl: number) => scales.y(mgdl);
  return {
    width,
    height,
    plot,
    targetBand: { y: y(THRESHOLDS_MGDL.high), height: y(THRESHOLDS_MGDL.low) - y(THRESHOLDS_MGDL.high) },
    paths: { outer: paths.band(5, 95), inner: paths.band(25, 75), median: paths.line(50) },
    targetLines: [y(THRESHOLDS_MGDL.low), y(THRESHOLDS_MGDL.high)],
    dashedLines: [y(THRESHOLDS_MGDL.veryLow), y(THRESHOLDS_MGDL.veryHigh)],
    hours: hourTicks().map((minute) => ({ x: scales.x(minute), label: clockOf(minute) })),
    glucose: [0, ...Object.values(THRESHOLDS_MGDL), GLUCOSE_AXIS_TOP_MGDL].map((mgdl) => ({
      y: y(mgdl),
      label: glucoseText(mgdl, unit),
      strong: mgdl === THRESHOLDS_MGDL.low || mgdl === THRESHOLDS_MGDL.high,
    })),
    colours: {
      targetBand: COLOURS.targetBand,
      target: COLOURS.target,
      outer: COLOURS.outer,
      inner: COLOURS.inner,
      median: COLOURS.median,
      rule: COLOURS.rule,
      grid: COLOURS.grid,
      text: COLOURS.text,
    },
    description: agpDescription(bins, unit),
  };
}
