/**
 * The report's PDF as a PDF reader sees it (one Letter page, its metadata from the options, the same
 * bytes for the same input whatever the clock says), and as it prints: its text read back by
 * pdftotext, and its page rendered by pdftoppm and read pixel by pixel at the boxes layout.ts places
 * the parts in (the AGP's bands and median over the target band, the time-in-ranges bar's colours).
 */
import { PDFDocument } from 'pdf-lib';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { agpPlotArea } from '../../../../shared/cgm/report/agp-chart';
import { dayCell } from '../../../../shared/cgm/report/daily-grid';
import { COLOURS, LAYOUT, type Box, type ColourName } from '../../../../shared/cgm/report/layout';
import { rangesBarArea } from '../../../../shared/cgm/report/ranges-bar';
import { renderAgpReport } from '../../../../shared/cgm/report/render';
import { GENERATED_AT, inRangeTrace, reportOf, variedTrace, type Rendered } from './fixtures';
import { pdfImage, pdfText, popplerFound, popplerRequired, type Image } from './poppler';

describe('the AGP report as a PDF', () => {
  afterEach(() => vi.useRealTimers());

  it('is one US Letter page that pdf-lib parses back', async () => {
    const { pdf } = await reportOf(variedTrace(14), 14);
    expect(Buffer.from(pdf.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    const parsed = await PDFDocument.load(pdf);
    expect(parsed.getPageCount()).toBe(1);
    expect(parsed.getPage(0).getSize()).toEqual({ width: 612, height: 792 });
  });

  it('carries its title and dates from the options, not from the clock', async () => {
    const { pdf } = await reportOf(variedTrace(14), 14, { patientName: 'Zoë Łukasiewicz' });
    const parsed = await PDFDocument.load(pdf, { updateMetadata: false });
    expect(parsed.getTitle()).toBe('Ambulatory Glucose Profile (AGP) report: Zoë Łukasiewicz, 2026-03-01 – 2026-03-14');
    expect(parsed.getCreationDate()?.getTime()).toBe(GENERATED_AT);
    expect(parsed.getModificationDate()?.getTime()).toBe(GENERATED_AT);
    expect(parsed.getCreator()).toBe('Clinical Data Exchange');
  });

  it('is the same bytes for the same input, at any time of rendering', async () => {
    const readings = variedTrace(14);
    const first = (await reportOf(readings, 14)).pdf;
    vi.useFakeTimers({ now: Date.parse('2031-07-04T12:00:00Z'), toFake: ['Date'] });
    const later = (await reportOf(readings, 14)).pdf;
    expect(Buffer.from(later).equals(Buffer.from(first))).toBe(true);
    // ...and a different input is not.
    const other = (await reportOf(inRangeTrace(14), 14)).pdf;
    expect(Buffer.from(other).equals(Buffer.from(first))).toBe(false);
  });

  it('refuses a day that is no date, a point off the day, and a generation time that is no instant', async () => {
    const { summary } = await reportOf(variedTrace(14), 14);
    const options = { patientName: 'A', generatedAt: GENERATED_AT };
    await expect(renderAgpReport({ summary, days: [{ date: '2026-02-30', points: [] }] }, options)).rejects.toThrow(RangeError);
    await expect(renderAgpReport({ summary, days: [{ date: '2026-03-01', points: [[1440, 100]] }] }, options)).rejects.toThrow(RangeError);
    await expect(renderAgpReport({ summary, days: [{ date: '2026-03-01', points: [[10, Number.NaN]] }] }, options)).rejects.toThrow(RangeError);
    await expect(renderAgpReport({ summary, days: [] }, { ...options, generatedAt: Number.NaN })).rejects.toThrow(RangeError);
  });
});

const DPI = 100;
const found = popplerFound();
if (!found && !popplerRequired()) console.warn('pdftoppm/pdftotext (Debian poppler-utils) are not on PATH: the report image and text tests are SKIPPED (apt-get install poppler-utils; under CI=true they fail instead).');

/** How many pixels of a box are a colour (each channel within a few levels: edges are anti-aliased, insides are not). */
function pixelsOf(image: Image, box: Box, colour: ColourName): number {
  const hex = COLOURS[colour];
  const want = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  let count = 0;
  const [x0, y0] = [Math.ceil(box.x * image.scale), Math.ceil(box.y * image.scale)];
  const [x1, y1] = [Math.floor((box.x + box.width) * image.scale), Math.floor((box.y + box.height) * image.scale)];
  for (let y = y0; y < y1; y += 1) {
    for (let x = x0; x < x1; x += 1) {
      const at = (y * image.width + x) * 4;
      if (want.every((v, c) => Math.abs(image.data[at + c]! - v) <= 3)) count += 1;
    }
  }
  return count;
}

describe.skipIf(!found && !popplerRequired())('the AGP report, printed', () => {
  let varied: Rendered;
  let inRange: Rendered;
  beforeAll(async () => {
    expect(found, 'pdftoppm and pdftotext are not on PATH and CI=true requires them: apt-get install poppler-utils').toBe(true);
    [varied, inRange] = await Promise.all([reportOf(variedTrace(14), 14), reportOf(inRangeTrace(14), 14)]);
  });

  it('shows the patient, the period, the metrics with their targets and the daily profiles', () => {
    const text = pdfText(varied.pdf);
    const g = varied.summary.glucose!;
    expect(text).toContain('Patient: Ana Souza');
    expect(text).toContain('Period: 2026-03-01 – 2026-03-14 (14 days)');
    expect(text).toContain(`Sensor active: ${varied.summary.sensorActivePercent.toFixed(1)}%`);
    expect(text).toMatch(new RegExp(`Time in range \\(70-180 mg/dL\\)\\s+${g.bands.target.percent.toFixed(1)}%\\s+> 70%\\s+${g.targets[0]!.met ? 'met' : 'not met'}`));
    expect(text).toMatch(new RegExp(`Time below 54 mg/dL\\s+${g.bands.veryLow.percent.toFixed(1)}%\\s+< 1%`));
    expect(text).toMatch(new RegExp(`Coefficient of variation\\s+${g.cvPercent.toFixed(1)}%\\s+≤ 36%`));
    expect(text).toMatch(new RegExp(`Mean glucose\\s+${g.meanMgdl.toFixed(0)} mg/dL`));
    expect(text).toMatch(new RegExp(`Glucose management indicator \\(GMI\\)\\s+${g.gmiPercent.toFixed(1)}%`));
    expect(text).toContain('Data sufficient');
    expect(text).toContain('Ambulatory glucose profile');
    expect(text).toMatch(/00:00\s+03:00\s+06:00\s+09:00\s+12:00\s+15:00\s+18:00\s+21:00\s+24:00/);
    expect(text).toContain('Daily glucose profiles\n');
    expect(text).toMatch(/Sun 03-01\s+Mon 03-02/);
  });

  it('draws the percentile bands and the median over the target band in the AGP chart', () => {
    const image = pdfImage(varied.pdf, DPI);
    const plot = agpPlotArea();
    const area = plot.width * plot.height * image.scale ** 2;
    // Each band covers a good share of the plot, the median a line across it.
    expect(pixelsOf(image, plot, 'outer') / area).toBeGreaterThan(0.02);
    expect(pixelsOf(image, plot, 'inner') / area).toBeGreaterThan(0.02);
    expect(pixelsOf(image, plot, 'median')).toBeGreaterThan(plot.width * image.scale);
    expect(pixelsOf(image, plot, 'targetBand')).toBeGreaterThan(0);
    // The curve's colours are the chart's alone: not in the header or the metrics.
    expect(pixelsOf(image, LAYOUT.metrics, 'inner') + pixelsOf(image, LAYOUT.header, 'outer')).toBe(0);
    // Each day's line in its cell.
    expect(pixelsOf(image, dayCell(0), 'median')).toBeGreaterThan(0);
    expect(pixelsOf(image, dayCell(13), 'median')).toBeGreaterThan(0);
  });

  it('stacks every band the readings reach in the time-in-ranges bar, and no very high where none is', () => {
    const bar = rangesBarArea();
    const all = pdfImage(varied.pdf, DPI);
    for (const band of ['veryHigh', 'high', 'target', 'low', 'veryLow'] as const) expect(pixelsOf(all, bar, band), band).toBeGreaterThan(0);
    const none = pdfImage(inRange.pdf, DPI);
    expect(inRange.summary.glucose!.bands.target.percent).toBe(100);
    expect(pixelsOf(none, bar, 'target')).toBeGreaterThan(bar.width * bar.height * none.scale ** 2 * 0.9);
    for (const band of ['veryHigh', 'high', 'low', 'veryLow'] as const) expect(pixelsOf(none, bar, band), band).toBe(0);
  });

  it('says when the data are not sufficient, and why', async () => {
    const { pdf } = await reportOf(variedTrace(5), 5);
    const text = pdfText(pdf);
    expect(text).toContain('Insufficient data, read these figures with care: the period is 5 days (14 needed).');
    expect(text).toContain('Period: 2026-03-01 – 2026-03-05 (5 days)');
  });

  it('draws a period without readings as such', async () => {
    const { pdf } = await reportOf([], 14);
    const text = pdfText(pdf);
    expect(text).toContain('no glucose readings in the period');
    expect(text).toContain('No readings in the period');
    expect(text).toMatch(/Time in range \(70-180 mg\/dL\)\s+—/);
    expect(pixelsOf(pdfImage(pdf, DPI), agpPlotArea(), 'inner')).toBe(0);
  });

  it('shows the last 14 days of a longer period, and says so', async () => {
    const { pdf } = await reportOf(variedTrace(30), 30);
    const text = pdfText(pdf);
    expect(text).toContain('Daily glucose profiles: the last 14 of 30 days');
    expect(text).toMatch(/Tue 03-17\s+Wed 03-18/);
    expect(text).not.toContain('Sun 03-01');
  });

  it('writes every glucose figure and axis in mmol/L when asked', async () => {
    const { pdf, summary } = await reportOf(variedTrace(14), 14, { unit: 'mmol/L' });
    const text = pdfText(pdf);
    expect(text).toMatch(new RegExp(`Time in range \\(3.9-10.0 mmol/L\\)\\s+${summary.glucose!.bands.target.percent.toFixed(1)}%`));
    expect(text).toMatch(/Mean glucose\s+\d+\.\d mmol\/L/);
    expect(text).toContain('3.9–10.0 mmol/L');
    expect(text).not.toContain('mg/dL');
  });
});
