/**
 * The ambulatory glucose profile as the consensus draws it: the 5th-95th and 25th-75th percentile
 * bands and the median over the time of day, in front of the 70-180 mg/dL target band, with the
 * consensus's thresholds marked and an hour axis on the readings' own clocks.
 */
import type { Agp } from '../agp';
import { clockOf } from '../time-of-day';
import { glucoseText, type GlucoseUnit } from '../units';
import type { Canvas } from './canvas';
import { agpPaths, GLUCOSE_AXIS_TOP_MGDL, hourTicks, scalesOf, THRESHOLDS_MGDL } from './curves';
import { LAYOUT, TYPE, type Box } from './layout';

/** The plot inside the part: room on the left for the glucose axis, on the right for the curves' names, below for the hours. */
export const agpPlotArea = (): Box => {
  const { x, y, width, height } = LAYOUT.agp;
  return { x: x + 34, y: y + 24, width: width - 34 - 30, height: height - 24 - 16 };
};

const LABEL_GAP = 8;
const AGP_TITLE = 'Ambulatory glucose profile';

export function drawAgpChart(canvas: Canvas, agp: Agp, unit: GlucoseUnit): void {
  const { x, y } = LAYOUT.agp;
  const title = { size: TYPE.section, weight: 'bold' } as const;
  canvas.text(AGP_TITLE, x, y + 10, title);
  canvas.text(
    `every day's readings folded onto one day, in ${agp.binMinutes}-minute bins: median, 25th-75th and 5th-95th percentiles`,
    x + canvas.widthOf(AGP_TITLE, title) + 8,
    y + 10,
    { size: TYPE.small, colour: 'muted' },
  );
  const plot = agpPlotArea();
  const scales = scalesOf(plot.width, plot.height);
  const { x: across, y: up } = scales;
  const at = { x: (minute: number) => plot.x + across(minute), y: (mgdl: number) => plot.y + up(mgdl) };

  canvas.rect(plot.x, at.y(THRESHOLDS_MGDL.high), plot.width, up(THRESHOLDS_MGDL.low) - up(THRESHOLDS_MGDL.high), 'targetBand');
  for (const minute of hourTicks()) {
    canvas.line(at.x(minute), plot.y, at.x(minute), plot.y + plot.height, { colour: 'grid', width: 0.5 });
    canvas.text(clockOf(minute), at.x(minute), plot.y + plot.height + 10, { size: TYPE.tick, align: 'middle', colour: 'muted' });
  }
  for (const mgdl of [THRESHOLDS_MGDL.veryLow, THRESHOLDS_MGDL.veryHigh]) {
    canvas.line(plot.x, at.y(mgdl), plot.x + plot.width, at.y(mgdl), { colour: 'rule', width: 0.5, dash: [2, 2] });
  }

  const paths = agpPaths(agp.bins, agp.binMinutes, scales);
  canvas.path(paths.band(5, 95), plot.x, plot.y, { fill: 'outer' });
  canvas.path(paths.band(25, 75), plot.x, plot.y, { fill: 'inner' });
  canvas.path(paths.line(50), plot.x, plot.y, { stroke: { colour: 'median', width: 1.75 } });
  for (const mgdl of [THRESHOLDS_MGDL.low, THRESHOLDS_MGDL.high]) {
    canvas.line(plot.x, at.y(mgdl), plot.x + plot.width, at.y(mgdl), { colour: 'target', width: 0.75 });
  }

  canvas.line(plot.x, plot.y, plot.x, plot.y + plot.height, { colour: 'rule', width: 0.75 });
  canvas.line(plot.x, plot.y + plot.height, plot.x + plot.width, plot.y + plot.height, { colour: 'rule', width: 0.75 });
  for (const mgdl of [0, ...Object.values(THRESHOLDS_MGDL), GLUCOSE_AXIS_TOP_MGDL]) {
    canvas.text(glucoseText(mgdl, unit), plot.x - 4, at.y(mgdl) + 2.5, { size: TYPE.tick, align: 'end', weight: mgdl === 70 || mgdl === 180 ? 'bold' : 'regular' });
  }
  canvas.text(unit, plot.x - 4, plot.y - 7, { size: TYPE.tick, align: 'end', colour: 'muted' });

  const ends = paths.ends();
  if (!ends) {
    canvas.text('No readings in the period', plot.x + plot.width / 2, plot.y + plot.height / 2, { size: TYPE.section, colour: 'muted', align: 'middle' });
    return;
  }
  // Each curve's name at its right end, moved apart where the curves end close together.
  let below = -Infinity;
  for (const p of [95, 75, 50, 25, 5] as const) {
    const labelY = Math.max(at.y(ends[p]) + 2.5, below + LABEL_GAP);
    canvas.text(`${p}%`, plot.x + plot.width + 3, labelY, { size: TYPE.tick, weight: p === 50 ? 'bold' : 'regular', colour: p === 50 ? 'median' : 'muted' });
    below = labelY;
  }
}
