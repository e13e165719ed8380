/**
 * The day summaries' store port (docs/store.md): a day's summary of a patient's code, the days of
 * a code within a range, and removing a patient's. Two adapters implement it, DynamoDB
 * (`dynamo-summaries.ts`, in the observations table beside the patient's readings) and in memory
 * (`memory-summaries.ts`); one contract suite (test/contract/summary-store.ts) runs against both.
 *
 * What a summary says is decided in the domain (`../stats/`); a store only keeps it, with the one
 * rule that makes keeping idempotent and safe under concurrent uploads: a day's readings are only
 * ever added, so a summary computed from more readings is the later one, and is never replaced by
 * one computed from fewer.
 */
import type { CgmDigest, CgmFigures } from '../../cgm/digest';
import type { DaySummary, DIGEST_NOT_KEPT, HourBounds, HourDigest } from '../stats/day-summary';

/** A kept day's value bounds by hour: undefined when its summary was kept before bounds were. */
export interface DayBounds {
  day: string;
  bounds: HourBounds[] | undefined;
}

/** A kept day's CGM digest (`DaySummary.cgm`): undefined when the summary keeps none (kept before digests were, or of a digest version no longer read). */
export interface DayDigest {
  day: string;
  digest: DaySummary['cgm'];
  /** The day's sensor readings per UTC hour (`DaySummary.cgmHours`), what its kept hours are checked against. */
  hours?: number[];
}

/** A kept day's CGM digest without its profile (`figuresOf`), as `DayDigest`. */
export interface DayFigures {
  day: string;
  digest: CgmFigures | typeof DIGEST_NOT_KEPT | undefined;
  hours?: number[];
}

/** A kept hour's CGM digest (`HourDigest`, `withProfile`) or its figures: `hour` is `yyyy-mm-ddThh` (UTC). */
export interface KeptHour<D extends CgmFigures = CgmFigures> {
  hour: string;
  digest: D;
}

/**
 * When a summary replaces the one kept for its day:
 * - `from-more-readings`: only one computed from fewer readings (equal counts are the same readings:
 *   nothing to write). What every upload writes.
 * - `repair`: also one computed from as many readings (its figures may be damaged). What a rebuild writes.
 */
export type KeepRule = 'from-more-readings' | 'repair';

export interface SummaryStore {
  /**
   * Keeps the day's summary under the rule; returns whether it was written. A store may leave out
   * histograms it cannot hold (the DynamoDB item's bound): they come back absent. `hours`, the
   * digests of some of the day's hours, are kept first, each under the same rule by its count (one
   * past the digest bound is left out: its day's count then names a digest not kept).
   */
  keep(summary: DaySummary, rule: KeepRule, hours?: readonly HourDigest[]): Promise<boolean>;
  /** The day's summary as kept (strongly consistent), or undefined. */
  day(patientId: number, codeId: number, day: string): Promise<DaySummary | undefined>;
  /**
   * The kept summaries of a code from day `from` to day `to` (both `yyyy-mm-dd`, inclusive), in
   * day order; with their histograms only when asked (a quantile needs them, nothing else does);
   * never with their bounds or digests (`bounds` and `digests` read those).
   */
  days(patientId: number, codeId: number, range: { from: string; to: string }, histograms: boolean): Promise<DaySummary[]>;
  /** The value bounds by hour of the kept days of a code from `from` to `to` (inclusive), in day order: a value search's plan. */
  bounds(patientId: number, codeId: number, range: { from: string; to: string }): Promise<DayBounds[]>;
  /** The CGM digests of the kept days of a code from `from` to `to` (inclusive), in day order: a CGM period's days. */
  digests(patientId: number, codeId: number, range: { from: string; to: string }): Promise<DayDigest[]>;
  /** As `digests`, without their profiles: a study's table needs no profile, and the profile is most of a digest. */
  figures(patientId: number, codeId: number, range: { from: string; to: string }): Promise<DayFigures[]>;
  /** The kept digests (with their profiles) or figures of these hours of a code (`yyyy-mm-ddThh`), those kept, in no particular order. */
  hours(patientId: number, codeId: number, hours: readonly string[], withProfile: true): Promise<Array<KeptHour<CgmDigest>>>;
  hours(patientId: number, codeId: number, hours: readonly string[], withProfile: false): Promise<KeptHour[]>;
  /** Removes every summary of the patient (hours included); returns how many days. */
  deletePatient(patientId: number): Promise<number>;
}
