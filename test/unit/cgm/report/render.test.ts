/**
 * The report's PDF as a PDF reader sees it: one Letter page, its metadata from the options, and the
 * same bytes for the same input whatever the clock says.
 */
import { PDFDocument } from 'pdf-lib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderAgpReport } from '../../../../shared/cgm/report/render';
import { GENERATED_AT, inRangeTrace, reportOf, variedTrace } from './fixtures';

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
