/**
 * The export store port: what bulk export keeps, in its own terms. The jobs and their parts (a
 * DynamoDB table on AWS and locally), the files (an S3 bucket, streamed into by multipart uploads),
 * and the queue that hands work to the worker (SQS on AWS; `npm start` runs the worker in its own
 * process). Two adapters implement it: DynamoDB, S3 and SQS (`dynamo.ts`, the service's) and in
 * memory (`memory.ts`, the twin for fast tests); one contract suite (test/contract/export-store.ts)
 * runs against both.
 */
import type { ExportFile, ExportJob, ExportMessage, ExportPart, JobStatus } from '../model';

/** A job as the sweep reads it. */
export type JobSummary = Pick<ExportJob, 'id' | 'status' | 'progressAt' | 'expiresAt'>;

export interface ExportJobs {
  /**
   * Stores a new job and its parts, counting the job among its owner's running jobs: `false`
   * (nothing stored) when the owner already runs `limit` jobs.
   */
  create(job: ExportJob, parts: readonly ExportPart[], limit: number): Promise<boolean>;
  get(id: string): Promise<ExportJob | undefined>;
  /** Every part of the job, in index order. */
  parts(jobId: string): Promise<ExportPart[]>;
  part(jobId: string, index: number): Promise<ExportPart | undefined>;
  /**
   * Records a part done with its files (kept as first recorded: a part done again keeps them), then
   * counts it in the job (`patients` more done, progress at `now`), once: the job as it is after, or
   * `undefined` when nothing was counted (the part was counted before, is unknown, or the job is no
   * longer running). The two steps are apart, in this order, so a part is never counted before its
   * files are recorded; calling again after a stop between them counts it then.
   */
  completePart(jobId: string, index: number, files: readonly ExportFile[], patients: number, now: number): Promise<ExportJob | undefined>;
  /** A running part's sign of life: the job's progress time, when it is still running. */
  touch(jobId: string, now: number): Promise<void>;
  /**
   * Moves a running job to `status` (complete, failed or cancelled), releasing its owner's slot:
   * `false` when it was not running. `expiresAt` (epoch s) and `failure` as given. `owner`: the
   * job's, when the caller has the job at hand (the store need not read it again).
   */
  finish(jobId: string, status: Exclude<JobStatus, 'in-progress'>, fields: Pick<ExportJob, 'expiresAt' | 'failure'>, owner?: ExportJob['owner']): Promise<boolean>;
  /** Cancels a finished (complete or failed) job; `false` when it is not finished. */
  cancelFinished(jobId: string, expiresAt: number): Promise<boolean>;
  /**
   * Records a status request answered 202 at `now`, unless the one before was less than `gapMs`
   * ago: `false` then (the client polls too fast), and nothing changes.
   */
  polled(jobId: string, now: number, gapMs: number): Promise<boolean>;
  /** Deletes the job, its parts and its place in the list (its files are the caller's to remove first). */
  remove(jobId: string): Promise<void>;
  /** Every job there is, as the sweep needs it. */
  list(): Promise<JobSummary[]>;
}

/** An object being written: lines go in as they come, in parts, so memory stays flat. */
export interface FileWriter {
  write(text: string): Promise<void>;
  /** Completes the object. */
  close(): Promise<void>;
  /** Gives up the object (nothing of it stays). */
  abort(): Promise<void>;
}

export interface ExportFiles {
  /** Starts the job's object `name` (written as `application/fhir+ndjson`), replacing one of that name. */
  open(jobId: string, name: string): FileWriter;
  /** An address the object can be downloaded from for `seconds`, without further credentials. */
  downloadUrl(jobId: string, name: string, seconds: number): Promise<string>;
  /** Deletes every object of the job; returns how many. */
  removeAll(jobId: string): Promise<number>;
}

/** The most messages the queue takes in one call (an SQS batch): a send of up to this many costs what one message does. */
export const QUEUE_BATCH = 10;

export interface ExportQueue {
  send(messages: readonly ExportMessage[]): Promise<void>;
}

export interface ExportStore {
  jobs: ExportJobs;
  files: ExportFiles;
  queue: ExportQueue;
}
