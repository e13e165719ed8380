/**
 * The scales and curves the AGP chart and the daily profiles share: time of day across (00:00 to
 * 24:00), glucose up (0 to 350 mg/dL, the consensus AGP's axis; a value above is drawn at the top),
 * and SVG paths from d3-shape for canvas.ts to draw.
 *
 * The AGP's curves pass through each 15-minute bin's figures at the bin's middle (monotone
 * smoothing between them, so no curve overshoots a bin's own figure); a bin without readings breaks
 * them. The day wraps round: at 00:00 and 24:00 the curves take the mean of the last and first
 * bins, so a curve reaches both edges.
 */
import { scaleLinear, type ScaleLinear } from 'd3-scale';
import { area, curveLinear, curveMonotoneX, line } from 'd3-shape';
import { AGP_PERCENTILES, type AgpBin, type AgpPercentile } from '../agp';
import type { DayPoint } from './input';

/** The top of the glucose axis (mg/dL). */
export const GLUCOSE_AXIS_TOP_MGDL = 350;
/** The consensus's thresholds as it writes them (mg/dL): where the chart draws its lines. */
export const THRESHOLDS_MGDL = { veryLow: 54, low: 70, high: 180, veryHigh: 250 } as const;
/** Hours between the time axis's ticks. */
export const HOURS_BETWEEN_TICKS = 3;
const MINUTES_PER_DAY = 1440;
/** Decimals of the path coordinates (points): a hundredth of a point is far below what a printer shows. */
const DIGITS = 2;

export interface Scales {
  /** Minute of the day to x. */
  x: ScaleLinear<number, number>;
  /** mg/dL to y, 0 at the bottom; values above the axis are held at its top. */
  y: ScaleLinear<number, number>;
}

export const scalesOf = (width: number, height: number): Scales => ({
  x: scaleLinear().domain([0, MINUTES_PER_DAY]).range([0, width]),
  y: scaleLinear().domain([0, GLUCOSE_AXIS_TOP_MGDL]).range([height, 0]).clamp(true),
});

/** The minutes of the time axis's ticks, 00:00 to 24:00. */
export const hourTicks = (): number[] => Array.from({ length: 24 / HOURS_BETWEEN_TICKS + 1 }, (_, i) => i * HOURS_BETWEEN_TICKS * 60);

type Figures = Record<AgpPercentile, number>;
interface CurvePoint {
  minute: number;
  figures?: Figures;
}

/** The bins at their middles, with the day's edges where both the first and the last bin hold readings. */
function curvePoints(bins: readonly AgpBin[], binMinutes: number): CurvePoint[] {
  const points: CurvePoint[] = bins.map((b) => ({ minute: b.startMinute + binMinutes / 2, ...(b.percentiles ? { figures: b.percentiles } : {}) }));
  const first = bins[0]?.percentiles;
  const last = bins.at(-1)?.percentiles;
  if (!first || !last) return points;
  const edge = Object.fromEntries(AGP_PERCENTILES.map((p) => [p, (first[p] + last[p]) / 2])) as Figures;
  return [{ minute: 0, figures: edge }, ...points, { minute: MINUTES_PER_DAY, figures: edge }];
}

/** The AGP's paths: the band between two percentiles, and the line of one. */
export function agpPaths(bins: readonly AgpBin[], binMinutes: number, { x, y }: Scales) {
  const points = curvePoints(bins, binMinutes);
  const held = (p: CurvePoint) => p.figures !== undefined;
  return {
    band: (low: AgpPercentile, high: AgpPercentile): string =>
      area<CurvePoint>()
        .defined(held)
        .x((p) => x(p.minute))
        .y0((p) => y(p.figures![low]))
        .y1((p) => y(p.figures![high]))
        .curve(curveMonotoneX)
        .digits(DIGITS)(points) ?? '',
    line: (percentile: AgpPercentile): string =>
      line<CurvePoint>()
        .defined(held)
        .x((p) => x(p.minute))
        .y((p) => y(p.figures![percentile]))
        .curve(curveMonotoneX)
        .digits(DIGITS)(points) ?? '',
    /** Where each percentile's curve ends on the right (its last bin holding readings), for its label. */
    ends: (): Figures | undefined => points.findLast(held)?.figures,
  };
}

/**
 * A day's readings as a line, broken where readings are more than `gapMinutes` apart (the sensor
 * was off), so a gap is not drawn as a straight stroke across it.
 */
export function dayPath(points: readonly DayPoint[], gapMinutes: number, { x, y }: Scales): string {
  const broken: Array<DayPoint | null> = [];
  points.forEach((p, i) => {
    if (i > 0 && p[0] - points[i - 1]![0] > gapMinutes) broken.push(null);
    broken.push(p);
  });
  return (
    line<DayPoint | null>()
      .defined((p) => p !== null)
      .x((p) => x(p![0]))
      .y((p) => y(p![1]))
      .curve(curveLinear)
      .digits(DIGITS)(broken) ?? ''
  );
}
