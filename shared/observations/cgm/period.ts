/**
 * The digest of a patient's sensor readings over a period (docs/cgm.md#a-period-from-the-digests):
 * the readings of the period as every path counts them (../period.ts: their effective start in
 * `[from, to)`), digested without reading each of them:
 *
 * - the whole UTC days inside the period from the day summaries' digests, kept as the readings were
 *   written (one Query of the code's days);
 * - the partial days at its edges (a period that starts or ends within a UTC day, as a local
 *   midnight or "now" does) from the readings of those parts of days, read and digested here;
 * - a day whose summary keeps no digest it can use (one kept before digests were, one of another
 *   digest version, one past the store's bound) from its readings too.
 *
 * The parts share no reading and follow one another in time, so their digests merge into exactly
 * the digest of the period's readings (shared/cgm/digest.ts), and the answer is the raw computation
 * over the period asked, whatever its edges. What is read grows with the days (a digest each) and
 * at most two partial days of readings, not with the readings of the whole days.
 */
import { figuresOf, mergeDigests, mergeFigures, summariseDay as digestOf, type CgmDayDigest, type CgmFigures, type CgmPeriodDigest } from '../../cgm/digest';
import { MS_PER_DAY } from '../../omh/datetime';
import { startBoundsOf, wholeDaysOf, type BoundedPeriod } from '../period';
import { dayOf, dayStart } from '../stats/day-summary';
import { allReadings, rowsQuery } from '../stats/keep';
import { summaryStore } from '../store/summary-current';
import { sensorReadingsOf } from './readings';

/** A blood glucose code of the code table: its id and schema. */
export interface SensorCode {
  codeId: number;
  schemaCode: string;
}

/** What a period's digest was made from. */
export interface DigestSources {
  /** Whole days whose kept digest was merged. */
  daysFromDigests: number;
  /** Readings read and digested: the partial days at the edges, and the days without a usable digest. */
  readingsRead: number;
}

/** The digest of the code's sensor readings over the period, and what it was made from. */
export async function periodDigest(patientId: number, code: SensorCode, period: BoundedPeriod): Promise<{ digest: CgmPeriodDigest; sources: DigestSources }> {
  const { kept, read, sources } = await periodParts(patientId, code, period, (range) => summaryStore().digests(patientId, code.codeId, range));
  return { digest: mergeDigests([...kept, ...read]), sources };
}

/** The figures of that digest (no profile: what a study's row needs), read and merged without the days' profiles. */
export async function periodFigures(patientId: number, code: SensorCode, period: BoundedPeriod): Promise<{ digest: CgmFigures; sources: DigestSources }> {
  const { kept, read, sources } = await periodParts(patientId, code, period, (range) => summaryStore().figures(patientId, code.codeId, range));
  return { digest: mergeFigures([...kept, ...read.map(figuresOf)]), sources };
}

/** The whole days' kept digests (read by `readKept`) and the digests of the readings read in place of the rest. */
async function periodParts<D extends CgmFigures>(
  patientId: number,
  code: SensorCode,
  period: BoundedPeriod,
  readKept: (range: { from: string; to: string }) => Promise<Array<{ day: string; digest: D | string | undefined }>>,
): Promise<{ kept: D[]; read: CgmDayDigest[]; sources: DigestSources }> {
  const whole = wholeDaysOf(startBoundsOf(period));
  const readSpan = (s: BoundedPeriod) => allReadings(rowsQuery(patientId, code.codeId, s));
  const edges: BoundedPeriod[] = whole.start < whole.end ? [{ from: period.from, to: whole.start }, { from: whole.end, to: period.to }] : [period];
  // The edges' readings are read beside the whole days' digests (one round trip, not two); a day
  // without a usable digest is known only from them, so its readings come after.
  const [kept, edgeRows] = await Promise.all([
    whole.start < whole.end ? readKept({ from: dayOf(whole.start), to: dayOf(whole.end - 1) }) : [],
    Promise.all(edges.filter((s) => s.from < s.to).map(readSpan)),
  ]);
  const usable = kept.flatMap((d) => (typeof d.digest === 'object' ? [d.digest] : []));
  const undigested = kept.flatMap((d) => (typeof d.digest === 'object' ? [] : [{ from: dayStart(d.day), to: dayStart(d.day) + MS_PER_DAY }]));
  const read = [...edgeRows, ...(await Promise.all(undigested.map(readSpan)))];
  return {
    kept: usable,
    read: read.map((rows) => digestOf(sensorReadingsOf(rows, code.schemaCode))),
    sources: { daysFromDigests: usable.length, readingsRead: read.reduce((n, rows) => n + rows.length, 0) },
  };
}
