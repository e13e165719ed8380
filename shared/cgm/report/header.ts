/**
 * The report's header (who, which period, how much data) and footer (when it was made, whose
 * targets, which clock the times of day are on).
 */
import type { CgmSummary } from '../metrics';
import type { Canvas } from './canvas';
import { countText, daysText, instantText, percentText, periodText } from './format';
import type { AgpReportOptions } from './input';
import { UTC_CLOCK } from '../zones';
import { LAYOUT, TYPE } from './layout';

export const REPORT_TITLE = 'Ambulatory Glucose Profile (AGP) report';

export function drawHeader(canvas: Canvas, summary: CgmSummary, options: AgpReportOptions): void {
  const { x, y, width, height } = LAYOUT.header;
  const body = { size: TYPE.body };
  canvas.text(REPORT_TITLE, x, y + 13, { size: TYPE.title, weight: 'bold' });
  canvas.text('Continuous glucose monitoring', x + width, y + 13, { size: TYPE.small, colour: 'muted', align: 'end' });
  canvas.text(`Patient: ${options.patientName}`, x, y + 29, { ...body, weight: 'bold' });
  canvas.text(`Period: ${periodText(summary.period, options.periodClock ?? UTC_CLOCK)} (${daysText(summary.periodDays)} days)`, x, y + 42, body);
  const every = summary.interval.source === 'default' ? '' : `, one every ${Number(summary.interval.minutes.toFixed(2))} min`;
  canvas.text(
    `Sensor active: ${percentText(summary.sensorActivePercent)}   Days with readings: ${summary.daysOfWear}   Readings: ${countText(summary.readings)}${every}`,
    x,
    y + 55,
    body,
  );
  canvas.line(x, y + height + 2, x + width, y + height + 2, { colour: 'rule', width: 0.75 });
}

export function drawFooter(canvas: Canvas, options: AgpReportOptions): void {
  const { x, y } = LAYOUT.footer;
  canvas.text(
    `Generated ${instantText(options.generatedAt)}. Targets: International Consensus on Time in Range (2019). Times of day are on the readings' own clocks.`,
    x,
    y + 8,
    { size: TYPE.tiny, colour: 'muted' },
  );
}
