/**
 * The AGP report's PDF (shared/cgm/report/), rendered in process for a 14-day and a 90-day period
 * of a sensor reading every 5 minutes: the render alone from the summary and daily profiles (what
 * an endpoint does once it has them), and the whole from the raw readings (summary, daily profiles,
 * render) for scale. The first render of the process (pdf-lib's font tables unpacked, code not yet
 * optimised) is shown apart. Target: the PDF rendered in under 1 s.
 */
import { summariseReadings } from '../shared/cgm/metrics';
import { dailyProfilesOf } from '../shared/cgm/report/daily-profiles';
import { renderAgpReport } from '../shared/cgm/report/render';
import type { CgmReading } from '../shared/cgm/digest';
import { MS_PER_DAY, MS_PER_MINUTE } from '../shared/omh/datetime';
import { median, percentile, printTable, timeOnce } from './table';

const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const WARM_UP = 5;
/** 2026-03-01 00:00 at -08:00. */
const FROM = Date.parse('2026-03-01T08:00:00Z');
const OFFSET = -480;
const OPTIONS = { patientName: 'Ana Souza', periodClock: () => OFFSET, generatedAt: Date.parse('2026-06-01T09:00:00Z') };

function readingsOf(days: number): CgmReading[] {
  const readings: CgmReading[] = [];
  for (let at = FROM, i = 0; at < FROM + days * MS_PER_DAY; at += 5 * MS_PER_MINUTE, i += 1) {
    const mgdl = 150 + 90 * Math.sin((2 * Math.PI * ((at - FROM) % MS_PER_DAY)) / MS_PER_DAY) + ((i * 37) % 41) - 20;
    readings.push({ at, offsetMinutes: OFFSET, mgdl: Math.round(mgdl) });
  }
  return readings;
}

function periodOf(days: number) {
  const readings = readingsOf(days);
  const period = { from: FROM, to: FROM + days * MS_PER_DAY };
  const build = () => ({ summary: summariseReadings(readings, { period }), days: dailyProfilesOf(readings, period, () => OFFSET) });
  return { readings, build, input: build() };
}

async function times(op: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARM_UP; i += 1) await op();
  const taken: number[] = [];
  for (let i = 0; i < RUNS; i += 1) taken.push(await timeOnce(op));
  return taken;
}

export async function cgmReportBench(): Promise<void> {
  const periods = [14, 90].map((days) => ({ days, ...periodOf(days) }));
  let bytes = 0;
  const first = await timeOnce(async () => (bytes = (await renderAgpReport(periods[0]!.input, OPTIONS)).length));
  const rows: Array<Record<string, string | number>> = [];
  for (const { days, readings, build, input } of periods) {
    const size = (await renderAgpReport(input, OPTIONS)).length;
    const row = (what: string, taken: number[]) => ({
      period: `${days} days`,
      readings: readings.length.toLocaleString('en-US'),
      what,
      'p50 ms': median(taken).toFixed(1),
      'p90 ms': percentile(taken, 90).toFixed(1),
      'max ms': Math.max(...taken).toFixed(1),
      'PDF KB': (size / 1024).toFixed(1),
    });
    rows.push(row('render (summary, days given)', await times(() => renderAgpReport(input, OPTIONS))));
    rows.push(row('summary + days + render', await times(() => renderAgpReport(build(), OPTIONS))));
  }
  printTable(`AGP report PDF, in process (${RUNS} runs after ${WARM_UP} warm-up; target: rendered in under 1 s)`, rows);
  console.log(`\nfirst render of the process (14 days): ${first.toFixed(0)} ms, ${(bytes / 1024).toFixed(1)} KB`);
}
