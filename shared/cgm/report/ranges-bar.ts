/**
 * The times in ranges as one stacked bar, very high at the top and very low at the bottom in the
 * consensus's colours, each band labelled with its range and share. A band with readings is never
 * thinner than a hairline, so a small share still shows; a band without any is not drawn.
 */
import type { CgmSummary } from '../metrics';
import { BANDS, type Band } from '../thresholds';
import type { GlucoseUnit } from '../units';
import type { Canvas } from './canvas';
import { percentText } from './format';
import { LAYOUT, TYPE, type Box } from './layout';

/** Each band's name and range as the consensus writes them, in either unit. */
export const BAND_LABELS: Readonly<Record<Band, { name: string; range: Readonly<Record<GlucoseUnit, string>> }>> = {
  veryHigh: { name: 'Very high', range: { 'mg/dL': '> 250 mg/dL', 'mmol/L': '> 13.9 mmol/L' } },
  high: { name: 'High', range: { 'mg/dL': '181–250 mg/dL', 'mmol/L': '10.1–13.9 mmol/L' } },
  target: { name: 'Target range', range: { 'mg/dL': '70–180 mg/dL', 'mmol/L': '3.9–10.0 mmol/L' } },
  low: { name: 'Low', range: { 'mg/dL': '54–69 mg/dL', 'mmol/L': '3.0–3.8 mmol/L' } },
  veryLow: { name: 'Very low', range: { 'mg/dL': '< 54 mg/dL', 'mmol/L': '< 3.0 mmol/L' } },
};

/** The thinnest a band with readings is drawn (points). */
const HAIRLINE = 1;
const BAR_WIDTH = 26;

/** Where the bar itself is drawn: under the part's title. */
export const rangesBarArea = (): Box => {
  const { x, y, height } = LAYOUT.rangesBar;
  return { x, y: y + 20, width: BAR_WIDTH, height: height - 24 };
};

/** Each band's height in the bar, top first: its share of `height`, a band with readings at least a hairline. */
export function bandHeights(percents: Readonly<Record<Band, number>>, height: number): Array<[Band, number]> {
  const top = [...BANDS].reverse();
  const raw = top.map((band) => (percents[band] > 0 ? Math.max(HAIRLINE, (percents[band] / 100) * height) : 0));
  const total = raw.reduce((a, b) => a + b, 0);
  return top.map((band, i) => [band, total > 0 ? (raw[i]! * height) / total : 0]);
}

export function drawRangesBar(canvas: Canvas, summary: CgmSummary, unit: GlucoseUnit): void {
  const { x, y, width } = LAYOUT.rangesBar;
  canvas.text('Time in ranges', x, y + 10, { size: TYPE.section, weight: 'bold' });
  const bar = rangesBarArea();
  const glucose = summary.glucose;
  if (glucose) {
    let top = bar.y;
    for (const [band, height] of bandHeights(Object.fromEntries(BANDS.map((b) => [b, glucose.bands[b].percent])) as Record<Band, number>, bar.height)) {
      if (height > 0) canvas.rect(bar.x, top, bar.width, height, band);
      top += height;
    }
  } else {
    canvas.rect(bar.x, bar.y, bar.width, bar.height, 'grid');
  }
  // Labels at even steps down the bar's side, in the bar's order, whatever the bands' heights.
  const step = bar.height / BANDS.length;
  [...BANDS].reverse().forEach((band, i) => {
    const middle = bar.y + step * (i + 0.5);
    const label = BAND_LABELS[band];
    canvas.rect(bar.x + bar.width + 6, middle - 4, 8, 8, band);
    canvas.text(label.name, bar.x + bar.width + 18, middle - 1, { size: TYPE.small, weight: 'bold' });
    canvas.text(label.range[unit], bar.x + bar.width + 18, middle + 8, { size: TYPE.tiny, colour: 'muted' });
    canvas.text(glucose ? percentText(glucose.bands[band].percent) : '—', x + width, middle + 3, { size: TYPE.body, weight: 'bold', align: 'end' });
  });
}
