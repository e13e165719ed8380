/**
 * The AGP report as a one-page PDF (docs/cgm.md#the-report): header, data sufficiency, the metrics
 * with their targets beside the time-in-ranges bar, the ambulatory glucose profile, the daily
 * profiles, and a footer, on a US Letter page (layout.ts says why).
 *
 * A pure function of its input: the same summary, days and options give the same bytes. pdf-lib
 * writes no document id, the creation and modification dates are `generatedAt`, and nothing is
 * random or read from the clock.
 */
import { drawAgpChart } from './agp-chart';
import { newPage } from './canvas';
import { drawDailyGrid } from './daily-grid';
import { periodText } from './format';
import { drawFooter, drawHeader, REPORT_TITLE } from './header';
import { daysToShow, type AgpReportInput, type AgpReportOptions } from './input';
import { UTC_CLOCK } from '../zones';
import { drawMetricsTable } from './metrics-table';
import { drawRangesBar } from './ranges-bar';
import { drawSufficiency } from './sufficiency';

/** The name the PDF says made it. */
const CREATOR = 'Clinical Data Exchange';

export async function renderAgpReport(input: AgpReportInput, options: AgpReportOptions): Promise<Uint8Array> {
  if (!Number.isFinite(options.generatedAt)) throw new RangeError(`not an instant: ${options.generatedAt}`);
  const { summary } = input;
  const unit = options.unit ?? 'mg/dL';
  const days = daysToShow(input.days);
  const { document, canvas } = await newPage();

  drawHeader(canvas, summary, options);
  drawSufficiency(canvas, summary);
  drawMetricsTable(canvas, summary, unit);
  drawRangesBar(canvas, summary, unit);
  drawAgpChart(canvas, summary.agp, unit);
  drawDailyGrid(canvas, days, summary.interval.minutes, unit);
  drawFooter(canvas, options);

  const generated = new Date(options.generatedAt);
  document.setTitle(`${REPORT_TITLE}: ${options.patientName}, ${periodText(summary.period, options.periodClock ?? UTC_CLOCK)}`);
  document.setCreator(CREATOR);
  document.setProducer('pdf-lib');
  document.setCreationDate(generated);
  document.setModificationDate(generated);
  return document.save();
}
