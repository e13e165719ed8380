/**
 * Rows as lazy streams in a traversal order: one patient's Queries read page by page, several
 * streams merged by the order (a k-way merge on a heap), or streams chained one after another
 * (patient by patient). A stream reads only as far as it is consumed, so a page costs what it
 * shows (plus one row to know whether there is a next page).
 */
import pMap from 'p-map';
import { config } from '../../config';
import type { StoredObservation } from '../model';
import { readReadings, type ReadingFilter, type ReadingsQuery } from '../read';
import type { PageStart, ReadingsPage } from '../store/port';

export interface RowStream {
  /** The next row without consuming it; undefined at the end. */
  peek(): Promise<StoredObservation | undefined>;
  /** Consumes the next row. */
  next(): Promise<StoredObservation | undefined>;
  /**
   * Consumes the rows that follow as far as they are already read (reading only when none is):
   * at least one, none at the end. A page takes rows run by run, not a promise a row.
   */
  nextRun(): Promise<StoredObservation[]>;
}

/**
 * Largest Query page: the largest search page, the row that tells whether another follows and the
 * cursor's own row (read again by the key bounds), so a full page is one Query, not a second one
 * for its last rows (DynamoDB also stops at 1 MB).
 */
/** The most rows one read asks for: a page, the row that tells whether another follows, and a cursor's own row. */
export const maxFetch = () => config().maxPageSize + 2;

/** Patients whose reads are planned at once (a value search reads each one's day summaries first). */
export const PLAN_CONCURRENCY = 16;

/**
 * Reads the Queries in turn, `first` rows at first and twice as many each time after. With
 * `readAhead` (a bulk export, which reads every row), each page's Query is sent as soon as the page
 * before it arrived, so the next page travels while this one is used: two pages in memory at most.
 * With `queriesAhead`, the first pages of that many Queries after the current one are read beside
 * it (a value search's runs, each a Query of a few blocks: one after another they are round trips
 * in a row); a page that fills early has read at most that many pages too many.
 */
export class QueryStream implements RowStream {
  private buffer: StoredObservation[] = [];
  private segment = 0;
  private start: PageStart | undefined;
  private done = false;
  private fetchSize: number;
  private ahead: Promise<ReadingsPage> | undefined;
  /** The first pages of the Queries after the current one, by index, already asked for. */
  private readonly upcoming = new Map<number, Promise<ReadingsPage>>();

  constructor(
    private readonly queries: readonly ReadingsQuery[],
    /** Applied by the store as it reads (a page counts kept rows only). */
    private readonly filter: ReadingFilter,
    first: number,
    private readonly readAhead = false,
    /** Where the first Query goes on from (a page start another read of the same rows gave). */
    start?: PageStart,
    private readonly queriesAhead = 0,
  ) {
    this.start = start;
    this.fetchSize = Math.max(1, Math.min(first, maxFetch()));
    this.done = queries.length === 0;
  }

  async peek(): Promise<StoredObservation | undefined> {
    while (this.buffer.length === 0 && !this.done) await this.fill();
    return this.buffer[0];
  }

  async next(): Promise<StoredObservation | undefined> {
    const item = await this.peek();
    this.buffer.shift();
    return item;
  }

  async nextRun(): Promise<StoredObservation[]> {
    await this.peek();
    return this.buffer.splice(0);
  }

  /** Starts the read of the next page early (a read-ahead stream's first page, before anyone asks). */
  prefetch(): void {
    if (!this.done && !this.ahead && this.buffer.length === 0) this.ahead = this.read();
  }

  private read(): Promise<ReadingsPage> {
    const early = this.start === undefined ? this.upcoming.get(this.segment) : undefined;
    this.upcoming.delete(this.segment);
    return early ?? this.readOf(this.segment, this.start);
  }

  private readOf(segment: number, start: PageStart | undefined): Promise<ReadingsPage> {
    const page = readReadings(this.queries[segment]!, this.fetchSize, start, this.filter);
    page.catch(() => undefined); // awaited by `fill`, or dropped with the stream
    return page;
  }

  private async fill(): Promise<void> {
    for (let next = this.segment + 1; next <= this.segment + this.queriesAhead && next < this.queries.length; next++) {
      if (!this.upcoming.has(next)) this.upcoming.set(next, this.readOf(next, undefined));
    }
    const page = await (this.ahead ?? this.read());
    this.ahead = undefined;
    this.fetchSize = Math.min(maxFetch(), this.fetchSize * 2);
    this.buffer.push(...page.readings);
    this.start = page.next;
    if (!this.start) {
      this.segment += 1;
      this.done = this.segment >= this.queries.length;
    }
    if (this.readAhead && !this.done) this.ahead = this.read();
  }
}

/** Rows already in memory, in order. */
export class ArrayStream implements RowStream {
  private at = 0;
  constructor(private readonly items: readonly StoredObservation[]) {}
  async peek() {
    return this.items[this.at];
  }
  async next() {
    return this.items[this.at++];
  }
  async nextRun() {
    const rest = this.items.slice(this.at);
    this.at = this.items.length;
    return rest;
  }
}

/**
 * Streams that follow one another: each is opened only when the one before it is exhausted, or
 * with `readAhead` (a bulk export) as the one before it is opened, its first page read meanwhile.
 */
export class ChainStream implements RowStream {
  private current: RowStream | undefined;
  private upcoming: RowStream | undefined;
  private at = 0;
  constructor(
    private readonly open: ReadonlyArray<() => RowStream>,
    private readonly readAhead = false,
  ) {}

  async peek(): Promise<StoredObservation | undefined> {
    for (;;) {
      if (!this.current) {
        if (!this.upcoming && this.at >= this.open.length) return undefined;
        this.current = this.upcoming ?? this.open[this.at++]!();
        this.upcoming = undefined;
        if (this.readAhead && this.at < this.open.length) {
          this.upcoming = this.open[this.at++]!();
          prefetchOf(this.upcoming);
        }
      }
      const item = await this.current.peek();
      if (item) return item;
      this.current = undefined;
    }
  }

  async next(): Promise<StoredObservation | undefined> {
    const item = await this.peek();
    if (item) await this.current!.next();
    return item;
  }

  async nextRun(): Promise<StoredObservation[]> {
    return (await this.peek()) ? this.current!.nextRun() : [];
  }
}

/**
 * A stream opened on its first use, by an asynchronous plan (a value search's reads wait for the
 * day summaries that say which hours to read).
 */
export class DeferredStream implements RowStream {
  private opened: Promise<RowStream> | undefined;
  constructor(private readonly open: () => Promise<RowStream>) {}

  private stream(): Promise<RowStream> {
    return (this.opened ??= this.open());
  }

  async peek() {
    return (await this.stream()).peek();
  }
  async next() {
    return (await this.stream()).next();
  }
  async nextRun() {
    return (await this.stream()).nextRun();
  }

  /** Opens the stream and starts its first read (a read-ahead). */
  prefetch(): void {
    this.stream().then(prefetchOf, () => undefined); // a failure is met again where the stream is read
  }
}

/** Starts a stream's first read, if it is one that can read ahead. */
function prefetchOf(stream: RowStream): void {
  if (stream instanceof QueryStream) stream.prefetch();
  else if (stream instanceof MergeStream) stream.prefetch();
  else if (stream instanceof DeferredStream) stream.prefetch();
}

/** Streams merged into one order: the heads of all are read first (bounded concurrency), then a heap. */
export class MergeStream implements RowStream {
  private heap: Array<{ head: StoredObservation; stream: RowStream }> | undefined;

  constructor(
    private readonly streams: readonly RowStream[],
    private readonly compare: (a: StoredObservation, b: StoredObservation) => number,
    private readonly concurrency = 16,
  ) {}

  /** Starts the first reads of the streams (a read-ahead). */
  prefetch(): void {
    for (const stream of this.streams) prefetchOf(stream);
  }

  private async init() {
    const heads = await pMap(this.streams, (s) => s.peek(), { concurrency: this.concurrency });
    this.heap = [];
    heads.forEach((head, i) => head && this.push({ head, stream: this.streams[i]! }));
  }

  async peek(): Promise<StoredObservation | undefined> {
    if (!this.heap) await this.init();
    return this.heap![0]?.head;
  }

  async next(): Promise<StoredObservation | undefined> {
    if (!this.heap) await this.init();
    const top = this.heap![0];
    if (!top) return undefined;
    await top.stream.next();
    const head = await top.stream.peek();
    this.pop();
    if (head) this.push({ head, stream: top.stream });
    return top.head;
  }

  /** One row: which stream gives the row after it is known only once its head is compared. */
  async nextRun(): Promise<StoredObservation[]> {
    const item = await this.next();
    return item ? [item] : [];
  }

  private less(i: number, j: number) {
    return this.compare(this.heap![i]!.head, this.heap![j]!.head) < 0;
  }

  private swap(i: number, j: number) {
    const h = this.heap!;
    [h[i], h[j]] = [h[j]!, h[i]!];
  }

  private push(entry: { head: StoredObservation; stream: RowStream }) {
    const h = this.heap!;
    h.push(entry);
    for (let i = h.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private pop() {
    const h = this.heap!;
    const last = h.pop()!;
    if (h.length === 0) return;
    h[0] = last;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.less(l, m)) m = l;
      if (r < h.length && this.less(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
  }
}

/** A stream as the kernel's page cutter reads it: run by run, only as far as it is consumed. */
export async function* runsOf(stream: RowStream): AsyncGenerator<StoredObservation[]> {
  for (let run = await stream.nextRun(); run.length > 0; run = await stream.nextRun()) yield run;
}
