/**
 * How much work goes to a store at once, learned from how fast it answers, and work started only
 * when it can finish before its request's deadline.
 *
 * A store that slows down (a loaded host, a throttled table, DynamoDB Local on two busy cores) is
 * not helped by more requests at once: they queue inside it, every answer comes later, and whole
 * batches miss their deadline together. So the number of units in flight follows the store's
 * answer time (a gradient limit, as TCP Vegas does for a link): while recent answers come about as
 * fast as the long-run ones and within `slowMs`, the limit grows; when they take twice as long, or
 * longer than `slowMs` (work is queuing inside the store), it shrinks by their ratio; a busy answer
 * (throttling) halves it. Waiting units queue across the requests of the
 * process (on Lambda, one request; locally, every request of the gateway), a request's first units
 * ahead of others' later ones, and a unit that would not finish before its request's deadline is not
 * started at all.
 */
import { beforeDeadline, type Deadline } from '../http/deadline';

export interface PaceOptions {
  /** Units in flight at the start, and the bounds of the limit. */
  initial: number;
  min: number;
  max: number;
  /** What a unit is assumed to take before any was measured (ms). */
  firstGuessMs: number;
  /**
   * An answer slower than this means units wait inside the store: fewer are sent, whatever the
   * long-run pace (which a store that slows down under load drags along with it).
   */
  slowMs: number;
}

/** How much longer than the long-run answer time a recent one may take before the limit shrinks. */
const TOLERANCE = 2;
/** Weight of a new answer time in the recent average (the last few) and the long-run one (the last few hundred). */
const RECENT_WEIGHT = 0.3;
const LONG_RUN_WEIGHT = 0.002;
/** Weight of a new limit against the old one: the limit moves in steps, not jumps. */
const SMOOTHING = 0.3;
/** A started unit is expected to take this much longer than the recent average (a margin for its spread). */
const MARGIN = 1.5;

export class Pace {
  private limit: number;
  private inFlight = 0;
  /** Waiting units, fewest earlier units of their request first, then in order of arrival. */
  private readonly queue: Array<{ turn: () => void; priority: number }> = [];
  private recentMs: number | undefined;
  private longRunMs: number | undefined;

  constructor(private readonly options: PaceOptions) {
    this.limit = options.initial;
  }

  /** Units that may be in flight now. */
  get current(): number {
    return Math.floor(this.limit);
  }

  /** What the next unit is expected to take (ms). */
  expectedMs(): number {
    return (this.recentMs ?? this.options.firstGuessMs) * MARGIN;
  }

  /**
   * Waits for a place; false (and no place taken) when the deadline would come before a unit
   * started then could finish. `started` is how many units the caller's request has started
   * already: a request's first unit goes ahead of other requests' later ones, so that every request
   * gets something done (and acknowledged) before any gets everything.
   */
  async acquire(deadline: Deadline, started = 0): Promise<boolean> {
    if (deadline.remainingMs() < this.expectedMs()) return false;
    if (this.inFlight < this.current && this.queue.length === 0) {
      this.inFlight += 1;
      return true;
    }
    return new Promise<boolean>((resolve) => {
      const waiter = {
        priority: started,
        turn: () => {
          clearTimeout(timer);
          const inTime = deadline.remainingMs() >= this.expectedMs();
          if (inTime) this.inFlight += 1;
          resolve(inTime);
        },
      };
      const wait = deadline.remainingMs() - this.expectedMs();
      const timer = Number.isFinite(wait)
        ? setTimeout(() => {
            const at = this.queue.indexOf(waiter);
            if (at >= 0) this.queue.splice(at, 1);
            resolve(false);
          }, Math.max(0, wait))
        : undefined;
      // After every waiter of the same or a lower priority: arrival order within a priority.
      const at = this.queue.findIndex((w) => w.priority > started);
      this.queue.splice(at < 0 ? this.queue.length : at, 0, waiter);
    });
  }

  /**
   * Gives a place back with the time its unit took and how the store answered: in time, busy
   * (throttled), or not asked at all (a unit refused before it reached the store teaches nothing).
   */
  release(ms: number, answer: StoreAnswer): void {
    this.inFlight -= 1;
    if (answer !== 'unused') this.learn(ms, answer === 'busy');
    this.next();
  }

  private learn(ms: number, busy: boolean): void {
    this.recentMs = this.recentMs === undefined ? ms : this.recentMs + RECENT_WEIGHT * (ms - this.recentMs);
    this.longRunMs = this.longRunMs === undefined ? ms : this.longRunMs + LONG_RUN_WEIGHT * (ms - this.longRunMs);
    const { min, max } = this.options;
    let target: number;
    if (busy) target = this.limit / 2;
    else {
      const acceptable = Math.min(TOLERANCE * this.longRunMs, this.options.slowMs);
      const gradient = Math.max(0.5, Math.min(1, acceptable / this.recentMs));
      // Room to grow while answers keep their pace (about the square root of the limit); none while they do not.
      target = gradient < 1 ? this.limit * gradient : this.limit + Math.sqrt(this.limit);
      // A store that became much faster is the new normal at once; a slower one becomes it over a few hundred answers.
      if (this.longRunMs > TOLERANCE * this.recentMs) this.longRunMs *= 0.95;
    }
    this.limit = Math.max(min, Math.min(max, this.limit + SMOOTHING * (target - this.limit)));
  }

  private next(): void {
    while (this.queue.length > 0 && this.inFlight < this.current) this.queue.shift()!.turn();
  }
}

/** How the store answered a unit's work. */
export type StoreAnswer = 'answered' | 'busy' | 'unused';

/** What became of a unit of paced work. */
export type PacedOutcome<R> =
  /** Finished in time. */
  | { kind: 'done'; value: R }
  /** Not started: the deadline would have come first. */
  | { kind: 'not-started' }
  /** Started, but not finished when the deadline came: it may or may not have taken effect. */
  | { kind: 'unconfirmed' };

/**
 * Runs units through a pace before a deadline, several at once as the pace allows, in order of the
 * list: once one cannot start in time, neither does any after it. `answerOf` says of a finished
 * unit's value how the store answered it (what the pace learns from).
 */
export async function runPaced<U, R>(
  units: readonly U[],
  pace: Pace,
  deadline: Deadline,
  work: (unit: U) => Promise<R>,
  answerOf: (value: R) => StoreAnswer = () => 'answered',
): Promise<Array<PacedOutcome<R>>> {
  const outcomes = units.map((): PacedOutcome<R> => ({ kind: 'not-started' }));
  const running: Array<Promise<void>> = [];
  // A unit that fails unexpectedly fails the whole run, once every started unit has settled. Its
  // error is held here, not left on a promise nobody awaits yet while later units wait for a place
  // (an unhandled rejection stops a Node process).
  let failure: { error: unknown } | undefined;
  let failed = false;
  for (const [i, unit] of units.entries()) {
    if (failed || !(await pace.acquire(deadline, i))) break;
    if (failed) {
      // A unit failed while this one waited: its place goes back unused.
      pace.release(0, 'unused');
      break;
    }
    const started = performance.now();
    const working = work(unit);
    // The place is held until the store has answered, in time or not: until then it is still busy with it.
    working.then(
      (value) => pace.release(performance.now() - started, answerOf(value)),
      () => {
        failed = true;
        pace.release(performance.now() - started, 'busy');
      },
    );
    running.push(
      beforeDeadline(working, deadline).then(
        (settled) => {
          outcomes[i] = settled ? { kind: 'done', value: settled.value } : { kind: 'unconfirmed' };
        },
        (error: unknown) => {
          failure ??= { error };
        },
      ),
    );
  }
  await Promise.all(running);
  if (failure) throw failure.error;
  return outcomes;
}
