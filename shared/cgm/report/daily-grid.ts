/**
 * The daily profiles as small multiples: seven days a row, each day's readings as a line over the
 * target band on the AGP's axes (00:00 to 24:00, 0 to 350 mg/dL), broken where the sensor was off.
 * Up to DAYS_SHOWN days; a longer period shows its last ones and says so.
 */
import { glucoseText, type GlucoseUnit } from '../units';
import type { Canvas } from './canvas';
import { dayPath, scalesOf, THRESHOLDS_MGDL } from './curves';
import { dayLabel } from './format';
import { DAYS_SHOWN, type ShownDay } from './input';
import { LAYOUT, TYPE, type Box } from './layout';

const COLUMNS = 7;
const AXIS_WIDTH = 18;
const TITLE_HEIGHT = 16;
const LABEL_HEIGHT = 10;
const CELL_GAP = 4;

/** Readings further apart than this, or than two reading intervals where that is longer, break a day's line. */
const MIN_GAP_MINUTES = 30;

/** The plot of the i-th day shown. */
export function dayCell(i: number): Box {
  const { x, y, width, height } = LAYOUT.daily;
  const cellWidth = (width - AXIS_WIDTH) / COLUMNS;
  const rowHeight = (height - TITLE_HEIGHT) / Math.ceil(DAYS_SHOWN / COLUMNS);
  return {
    x: x + AXIS_WIDTH + (i % COLUMNS) * cellWidth,
    y: y + TITLE_HEIGHT + Math.floor(i / COLUMNS) * rowHeight + LABEL_HEIGHT,
    width: cellWidth - CELL_GAP,
    height: rowHeight - LABEL_HEIGHT - CELL_GAP,
  };
}

export const dailyTitle = (shown: number, of: number): string =>
  of > shown ? `Daily glucose profiles: the last ${shown} of ${of} days` : 'Daily glucose profiles';

export function drawDailyGrid(canvas: Canvas, days: { shown: ShownDay[]; of: number }, intervalMinutes: number, unit: GlucoseUnit): void {
  const { x, y } = LAYOUT.daily;
  canvas.text(dailyTitle(days.shown.length, days.of), x, y + 10, { size: TYPE.section, weight: 'bold' });
  const gapMinutes = Math.max(MIN_GAP_MINUTES, 2 * intervalMinutes);
  days.shown.forEach((day, i) => {
    const cell = dayCell(i);
    const scales = scalesOf(cell.width, cell.height);
    const top = cell.y + scales.y(THRESHOLDS_MGDL.high);
    canvas.text(dayLabel(day.date, day.midnightUtc), cell.x, cell.y - 3, { size: TYPE.tiny, weight: 'bold' });
    canvas.rect(cell.x, top, cell.width, scales.y(THRESHOLDS_MGDL.low) - scales.y(THRESHOLDS_MGDL.high), 'targetBand');
    canvas.line(cell.x, cell.y + cell.height, cell.x + cell.width, cell.y + cell.height, { colour: 'rule', width: 0.5 });
    // Noon, for the eye to place the day's hours.
    canvas.line(cell.x + cell.width / 2, cell.y, cell.x + cell.width / 2, cell.y + cell.height, { colour: 'grid', width: 0.4 });
    if (i % COLUMNS === 0) {
      for (const mgdl of [THRESHOLDS_MGDL.low, THRESHOLDS_MGDL.high]) {
        canvas.text(glucoseText(mgdl, unit), cell.x - 3, cell.y + scales.y(mgdl) + 2.5, { size: TYPE.tiny, align: 'end', colour: 'muted' });
      }
    }
    if (day.points.length === 0) {
      canvas.text('no readings', cell.x + cell.width / 2, cell.y + cell.height / 2, { size: TYPE.tiny, colour: 'muted', align: 'middle' });
      return;
    }
    canvas.path(dayPath(day.points, gapMinutes, scales), cell.x, cell.y, { stroke: { colour: 'median', width: 0.8 } });
  });
}
