/**
 * The line under the header that says whether the period's data are enough for the consensus's
 * figures to be read as the period's (metrics.ts, sufficiency): and when not, each shortfall.
 */
import type { CgmSummary, Shortfall } from '../metrics';
import { SUFFICIENT_ACTIVE_PERCENT, SUFFICIENT_DAYS } from '../thresholds';
import type { Canvas } from './canvas';
import { daysText, percentText } from './format';
import { LAYOUT, TYPE } from './layout';

const shortfallText = (s: Shortfall): string => {
  switch (s.code) {
    case 'no-readings':
      return 'no glucose readings in the period';
    case 'period-too-short':
      return `the period is ${daysText(s.days)} days (${s.needed} needed)`;
    case 'too-little-data':
      return `the sensor was active ${percentText(s.activePercent)} of it (${s.needed}% needed)`;
  }
};

export function sufficiencyText(summary: CgmSummary): string {
  const { sufficient, shortfalls } = summary.sufficiency;
  return sufficient
    ? `Data sufficient: at least ${SUFFICIENT_DAYS} days with the sensor active at least ${SUFFICIENT_ACTIVE_PERCENT}% of the time.`
    : `Insufficient data, read these figures with care: ${shortfalls.map(shortfallText).join('; ')}.`;
}

export function drawSufficiency(canvas: Canvas, summary: CgmSummary): void {
  const { x, y } = LAYOUT.sufficiency;
  const sufficient = summary.sufficiency.sufficient;
  canvas.text(sufficiencyText(summary), x, y + 11, sufficient ? { size: TYPE.small, colour: 'muted' } : { size: TYPE.body, weight: 'bold', colour: 'notice' });
}
