/**
 * One patient's read of a bulk export, in slices side by side. An export wants every row and in no
 * order, and a patient's rows are one partition, read page after page: on a store that answers a
 * page in tens of milliseconds, a patient-year of minute readings is dozens of pages in a row. So
 * the first page is read as any other (as much as one Query brings); when another follows, the far
 * end of the patient's dated readings is asked (one row), the time left between the first page's
 * last row and that end is cut into `SLICES` equal stretches, and each stretch is read as its own
 * stream (reading ahead), rows given out as soon as any stretch has them. Memory stays bounded: the
 * first page, then each stretch's page and the next. A patient whose rows fit in the first page
 * costs one Query.
 */
import type { StoredObservation } from '../model';
import { readReadings, type ReadingFilter, type ReadingsQuery } from '../read';
import { maxFetch, QueryStream, type RowStream } from './streams';

/** Stretches read side by side after the first page. */
export const SLICES = 4;

/**
 * The first page's rows: ten of the largest search page (10,020 by default), what one Query of
 * blocks brings (an hour of minute readings is a block of about 2 KB: some 170 of them, well under
 * DynamoDB's 1 MB a Query), so most patients' whole export is that one Query; a larger one's
 * stretches start after it (the first page is read alone). A smaller first page, to render the
 * first rows while the rest are read, was slower (a small export 0.67 s instead of 0.51 with 4,008
 * rows, docs/benchmarks.md#a-small-export-kick-off-to-manifest): the stretches' reads side by
 * side cost more than they overlap.
 */
const firstPage = () => 10 * maxFetch();

/** A reading's time in a dated read (its effective start); undated ones have none. */
const timeOf = (o: StoredObservation): number | undefined => o.effective?.start;

/**
 * The reads after the first page, which ended at a dated row at `last` (its page start `start`),
 * when the far end of the dated readings is at `far`: stretches of equal time, the first of them
 * going on from `start`, the last reaching the query's own far bound (and its undated readings).
 */
export function sliceQueries(q: ReadingsQuery & { time: NonNullable<ReadingsQuery['time']> }, last: number, far: number, slices = SLICES): ReadingsQuery[] {
  const [lo, hi] = q.ascending ? [last, far] : [far, last];
  const n = Math.max(1, Math.min(slices, hi - lo + 1));
  const edges = Array.from({ length: n + 1 }, (_, j) => lo + Math.floor(((hi + 1 - lo) * j) / n));
  // Stretch j holds [edges[j], edges[j+1] - 1]; listed in the reading's direction.
  const stretches = Array.from({ length: n }, (_, j) => ({ from: edges[j]!, to: edges[j + 1]! - 1 }));
  if (!q.ascending) stretches.reverse();
  return stretches.map((s, j) => {
    const outer = j === n - 1;
    const time = q.ascending ? { from: s.from, ...(outer ? (q.time.to === undefined ? {} : { to: q.time.to }) : { to: s.to }) } : { ...(outer ? (q.time.from === undefined ? {} : { from: q.time.from }) : { from: s.from }), to: s.to };
    const { undated, ...dated } = q;
    // Undated readings follow the dated ones ascending; descending, the first page read them.
    return { ...dated, time, ...(outer && undated && q.ascending ? { undated } : {}) };
  });
}

export class SlicedStream implements RowStream {
  private buffer: StoredObservation[] = [];
  private started: Promise<void> | undefined;
  /** Each stretch's stream with its next run on the way. */
  private readonly pending = new Map<RowStream, Promise<{ stream: RowStream; run: StoredObservation[] }>>();

  constructor(
    private readonly query: ReadingsQuery,
    private readonly filter: ReadingFilter,
  ) {}

  /** Starts the first page (a read-ahead). */
  prefetch(): void {
    this.start().catch(() => undefined); // met again where the stream is read
  }

  async peek(): Promise<StoredObservation | undefined> {
    await this.fill();
    return this.buffer[0];
  }

  async next(): Promise<StoredObservation | undefined> {
    await this.fill();
    return this.buffer.shift();
  }

  async nextRun(): Promise<StoredObservation[]> {
    await this.fill();
    return this.buffer.splice(0);
  }

  private start(): Promise<void> {
    return (this.started ??= this.open());
  }

  /** Reads the first page, then opens the stretches that follow it (or the one read that goes on). */
  private async open(): Promise<void> {
    const q = this.query;
    const page = await readReadings(q, firstPage(), undefined, this.filter);
    this.buffer.push(...page.readings);
    if (!page.next) return;
    const last = page.readings.length > 0 ? timeOf(page.readings[page.readings.length - 1]!) : undefined;
    let rest: ReadingsQuery[] | undefined;
    if (last !== undefined && q.time) {
      const { undated: _undated, ...dated } = q;
      const end = await readReadings({ ...dated, time: q.time, ascending: !q.ascending }, 1);
      const far = end.readings[0] && timeOf(end.readings[0]);
      if (far !== undefined) rest = sliceQueries({ ...q, time: q.time }, last, far);
    }
    // The page ended among undated readings (or nothing is left to cut): the read goes on as one.
    const reads = rest ?? [q];
    reads.forEach((read, j) => this.add(new QueryStream([read], this.filter, maxFetch(), true, j === 0 ? page.next : undefined)));
  }

  private add(stream: QueryStream): void {
    stream.prefetch();
    this.ask(stream);
  }

  /** Asks a stretch for its next run (kept until raced; a failure is met there, not left unhandled). */
  private ask(stream: RowStream): void {
    const next = stream.nextRun().then((run) => ({ stream, run }));
    next.catch(() => undefined);
    this.pending.set(stream, next);
  }

  /** Until a row is at hand or every stretch is done: the run of whichever stretch answers first. */
  private async fill(): Promise<void> {
    await this.start();
    while (this.buffer.length === 0 && this.pending.size > 0) {
      const { stream, run } = await Promise.race(this.pending.values());
      if (run.length === 0) {
        this.pending.delete(stream);
        continue;
      }
      this.buffer.push(...run);
      this.ask(stream);
    }
  }
}
