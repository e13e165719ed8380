/**
 * The metrics and their targets as a table: the five times in ranges and the CV, each with the
 * target the summary judged it by (when one has it) and whether it is met; then the mean glucose,
 * GMI and SD, which the consensus gives no target.
 */
import type { CgmSummary, GlucoseMetrics } from '../metrics';
import { BANDS_OF, METRIC_LABELS, type TargetMetric } from '../thresholds';
import { glucoseText, type GlucoseUnit } from '../units';
import type { Canvas } from './canvas';
import { percentText, targetText } from './format';
import { LAYOUT, TYPE } from './layout';

export interface MetricRow {
  label: string;
  value: string;
  target: string;
  /** Whether the target is met; absent where there is no target or no figure. */
  met?: boolean;
}

const JUDGED: readonly TargetMetric[] = ['timeInRange', 'timeBelow70', 'timeBelow54', 'timeAbove180', 'timeAbove250', 'cv'];
const NONE = '—';

const figureOf = (glucose: GlucoseMetrics, metric: TargetMetric): number =>
  metric === 'cv' ? glucose.cvPercent : BANDS_OF[metric].reduce((sum, band) => sum + glucose.bands[band].percent, 0);

/** The table's rows: what the report prints, figure by figure. */
export function metricRows(summary: CgmSummary, unit: GlucoseUnit): MetricRow[] {
  const glucose = summary.glucose;
  const judged = JUDGED.map((metric): MetricRow => {
    const check = glucose?.targets.find((t) => t.metric === metric);
    return {
      label: METRIC_LABELS[metric][unit],
      value: glucose ? percentText(figureOf(glucose, metric)) : NONE,
      target: check ? targetText(check) : NONE,
      ...(check ? { met: check.met } : {}),
    };
  });
  const plain = (label: string, value: string | undefined): MetricRow => ({ label, value: value ?? NONE, target: NONE });
  return [
    ...judged,
    plain('Mean glucose', glucose && `${glucoseText(glucose.meanMgdl, unit)} ${unit}`),
    plain('Glucose management indicator (GMI)', glucose && percentText(glucose.gmiPercent)),
    plain('Standard deviation (SD)', glucose && `${glucoseText(glucose.sdMgdl, unit)} ${unit}`),
  ];
}

export function drawMetricsTable(canvas: Canvas, summary: CgmSummary, unit: GlucoseUnit): void {
  const { x, y, width } = LAYOUT.metrics;
  const columns = { value: x + 220, target: x + 268, status: x + width };
  const rowHeight = 15;
  canvas.text('Glucose metrics', x, y + 10, { size: TYPE.section, weight: 'bold' });
  const header = y + 27;
  const head = { size: TYPE.small, weight: 'bold' as const, colour: 'muted' as const };
  canvas.text('Metric', x, header, head);
  canvas.text('Value', columns.value, header, { ...head, align: 'end' });
  canvas.text('Target', columns.target, header, head);
  canvas.line(x, header + 4, x + width, header + 4, { colour: 'rule', width: 0.5 });
  metricRows(summary, unit).forEach((row, i) => {
    const baseline = header + 4 + rowHeight * (i + 1) - 4;
    canvas.text(row.label, x, baseline, { size: TYPE.body });
    canvas.text(row.value, columns.value, baseline, { size: TYPE.body, weight: 'bold', align: 'end' });
    canvas.text(row.target, columns.target, baseline, { size: TYPE.body });
    if (row.met !== undefined) {
      canvas.text(row.met ? 'met' : 'not met', columns.status, baseline, { size: TYPE.body, weight: 'bold', colour: row.met ? 'met' : 'notMet', align: 'end' });
    }
    if (i === JUDGED.length - 1) canvas.line(x, baseline + 4.5, x + width, baseline + 4.5, { colour: 'grid', width: 0.5 });
  });
}
