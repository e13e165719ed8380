/**
 * The digest of a patient's sensor readings over a period (docs/cgm.md#a-period-from-the-digests):
 * the readings of the period as every path counts them (../period.ts: their effective start in
 * `[from, to)`), digested without reading each of them:
 *
 * - the whole UTC days inside the period from the day summaries' digests, kept as the readings were
 *   written (one Query of the code's days);
 * - the whole UTC hours of the partial days at its edges (a period that starts or ends within a UTC
 *   day, as a local midnight or "now" does) from the hours' digests kept beside the day summaries
 *   (one BatchGetItem of both edges' hours), each used only when its count is the one its day's
 *   summary names for it;
 * - the parts of hours at its ends from their hours' digests too when every reading of the hour
 *   lies in the part (as in the hour that holds "now"), else from their readings, read and
 *   digested here;
 * - a day or hour whose kept digest cannot be used (one kept before digests or hour digests were,
 *   one of another digest version, one past the store's bound, one an upload is still writing) from
 *   its readings too.
 *
 * The parts share no reading and follow one another in time, so their digests merge into exactly
 * the digest of the period's readings (shared/cgm/digest.ts), and the answer is the raw computation
 * over the period asked, whatever its edges. What is read grows with the days (a digest each) and
 * the edges' hours (a digest each), and at most two parts of hours of readings, not with the readings.
 */
import { figuresOf, mergeDigests, mergeFigures, summariseDay as digestOf, type CgmDayDigest, type CgmFigures, type CgmPeriodDigest } from '../../cgm/digest';
import { MS_PER_DAY } from '../../omh/datetime';
import { startBoundsOf, wholeDaysOf, type BoundedPeriod } from '../period';
import { dayOf, dayStart, HOUR_MS, hourKeyAt } from '../stats/day-summary';
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
  /** Whole hours of the partial days at the edges whose kept digest was merged. */
  hoursFromDigests: number;
  /** Readings read and digested: the parts of hours at the edges, and the days and hours without a usable digest. */
  readingsRead: number;
}

/** The digest of the code's sensor readings over the period, and what it was made from. */
export async function periodDigest(patientId: number, code: SensorCode, period: BoundedPeriod): Promise<{ digest: CgmPeriodDigest; sources: DigestSources }> {
  const { kept, read, sources } = await periodParts(
    patientId,
    code,
    period,
    (range) => summaryStore().digests(patientId, code.codeId, range),
    (hours) => summaryStore().hours(patientId, code.codeId, hours, true),
  );
  return { digest: mergeDigests([...kept, ...read]), sources };
}

/** The figures of that digest (no profile: what a study's row needs), read and merged without the days' profiles. */
export async function periodFigures(patientId: number, code: SensorCode, period: BoundedPeriod): Promise<{ digest: CgmFigures; sources: DigestSources }> {
  const { kept, read, sources } = await periodParts(
    patientId,
    code,
    period,
    (range) => summaryStore().figures(patientId, code.codeId, range),
    (hours) => summaryStore().hours(patientId, code.codeId, hours, false),
  );
  return { digest: mergeFigures([...kept, ...read.map(figuresOf)]), sources };
}

/** The parts of an edge (a part of a UTC day) in each UTC hour it touches: whole hours, and parts of hours at its ends. */
function hourPieces(edge: BoundedPeriod): Array<{ hour: number; piece: BoundedPeriod }> {
  const pieces: Array<{ hour: number; piece: BoundedPeriod }> = [];
  for (let hour = Math.floor(edge.from / HOUR_MS) * HOUR_MS; hour < edge.to; hour += HOUR_MS) {
    pieces.push({ hour, piece: { from: Math.max(edge.from, hour), to: Math.min(edge.to, hour + HOUR_MS) } });
  }
  return pieces;
}

/** Pieces that follow one another as few spans. */
function spansOf(pieces: readonly BoundedPeriod[]): BoundedPeriod[] {
  const spans: BoundedPeriod[] = [];
  for (const { from, to } of pieces) {
    const last = spans.at(-1);
    if (last && last.to === from) last.to = to;
    else spans.push({ from, to });
  }
  return spans;
}

/**
 * Which of its hour's kept digest a piece of the hour takes: all of it (`whole`: the piece is the
 * hour, or every reading the digest holds lies in the piece), none (no reading in the piece), or
 * its readings must be read (the piece cuts through the digest's readings).
 */
function pieceTakes(piece: BoundedPeriod, hour: number, digest: CgmFigures): 'whole' | 'none' | 'read' {
  if (digest.count === 0 || digest.last! < piece.from || digest.first! >= piece.to) return 'none';
  if ((piece.from === hour && piece.to === hour + HOUR_MS) || (digest.first! >= piece.from && digest.last! < piece.to)) return 'whole';
  return 'read';
}

/**
 * The kept digests of the period's whole days (read by `readDays`) and of the whole hours of its
 * partial days (`readHours`), and the digests of the readings read in place of the rest: the parts
 * of hours at the period's ends, and any day or hour whose kept digest cannot be used.
 */
async function periodParts<D extends CgmFigures>(
  patientId: number,
  code: SensorCode,
  period: BoundedPeriod,
  readDays: (range: { from: string; to: string }) => Promise<Array<{ day: string; digest: D | string | undefined; hours?: number[] }>>,
  readHours: (hours: readonly string[]) => Promise<Array<{ hour: string; digest: D }>>,
): Promise<{ kept: D[]; read: CgmDayDigest[]; sources: DigestSources }> {
  const whole = wholeDaysOf(startBoundsOf(period));
  const readSpan = (s: BoundedPeriod) => allReadings(rowsQuery(patientId, code.codeId, s));
  const edges: BoundedPeriod[] = (whole.start < whole.end ? [{ from: period.from, to: whole.start }, { from: whole.end, to: period.to }] : [period]).filter((s) => s.from < s.to);
  const pieces = edges.flatMap(hourPieces);
  // The days read: the whole days for their digests, and the days of the edges' hours for their counts by hour.
  const dayStarts = [...(whole.start < whole.end ? [whole.start, whole.end - 1] : []), ...pieces.map((p) => p.hour)];
  // Days and hours in one round trip; what has no usable digest is known only from them, so its readings come after.
  const [days, hours] = await Promise.all([
    dayStarts.length > 0 ? readDays({ from: dayOf(Math.min(...dayStarts)), to: dayOf(Math.max(...dayStarts)) }) : [],
    pieces.length > 0 ? readHours(pieces.map((p) => hourKeyAt(p.hour))) : [],
  ]);
  const wholeDays = new Set<string>();
  for (let at = whole.start; at < whole.end; at += MS_PER_DAY) wholeDays.add(dayOf(at));
  const ofWholeDays = days.filter((d) => wholeDays.has(d.day));
  const usable = ofWholeDays.flatMap((d) => (typeof d.digest === 'object' ? [d.digest] : []));
  const unread = ofWholeDays.flatMap((d) => (typeof d.digest === 'object' ? [] : [{ from: dayStart(d.day), to: dayStart(d.day) + MS_PER_DAY }]));
  // An hour's kept digest is used when its day's summary names its count (0: the hour holds no sensor reading).
  const countsByDay = new Map(days.map((d) => [d.day, d.hours]));
  const keptHours = new Map(hours.map((h) => [h.hour, h.digest]));
  const hourDigests: D[] = [];
  const toRead: BoundedPeriod[] = [];
  for (const { hour, piece } of pieces) {
    const count = countsByDay.get(dayOf(hour))?.[new Date(hour).getUTCHours()];
    if (count === 0) continue;
    const digest = keptHours.get(hourKeyAt(hour));
    const takes = count !== undefined && digest !== undefined && digest.count === count ? pieceTakes(piece, hour, digest) : 'read';
    if (takes === 'whole') hourDigests.push(digest!);
    else if (takes === 'read') toRead.push(piece);
  }
  const read = await Promise.all([...unread, ...spansOf(toRead)].map(readSpan));
  return {
    kept: [...usable, ...hourDigests],
    read: read.map((rows) => digestOf(sensorReadingsOf(rows, code.schemaCode))),
    sources: { daysFromDigests: usable.length, hoursFromDigests: hourDigests.length, readingsRead: read.reduce((n, rows) => n + rows.length, 0) },
  };
}
