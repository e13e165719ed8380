/**
 * The brands directory's store port: the published version of the directory, read whole, and the
 * publication of a new one. Two adapters implement it, DynamoDB (`dynamo.ts`: a head item and the
 * compressed directory in immutable chunk items) and in memory (`memory.ts`); one contract suite
 * (test/contract/brand-store.ts) runs against both.
 *
 * A version is never changed once published, so a reader that holds one (a warm function's search
 * index) only asks whether the head still names it. Publishing is all or nothing: the head moves
 * to a version only once every part of it is stored, and only from the version the publisher read.
 */
import type { BrandDirectory, DirectoryHead } from '../model';

export interface BrandStore {
  /** The published head; undefined before anything was published. Strongly consistent. */
  head(): Promise<DirectoryHead | undefined>;
  /**
   * The directory of a version the head named; undefined when that version is no longer stored (a
   * later publication retired it: read the head again). The version just before the head stays
   * readable, so a reader that read the head a moment ago still finds it.
   */
  read(version: string): Promise<BrandDirectory | undefined>;
  /**
   * Publishes `next` as a new version, if the head still names `expected` (undefined: nothing
   * published yet); the new head, or `false` (nothing changed) when another publication came first.
   */
  publish(next: BrandDirectory, expected: string | undefined, publishedAt: string): Promise<DirectoryHead | false>;
}
