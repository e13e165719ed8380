/**
 * Keys of the exports table (`EXPORTS` in shared/store/tables.ts): every job in one partition (the
 * sweep reads the list with one Query), a job's parts in its own, a caller's count of running jobs.
 */
import { config } from '../../config';

export const exportsTable = (): string => config().exports.table;

/** The partition holding every job. */
export const JOBS_PK = 'JOBS';

export const exportKeys = {
  job: (id: string) => ({ pk: JOBS_PK, sk: id }),
  partsPk: (jobId: string) => `JOB#${jobId}`,
  part: (jobId: string, index: number) => ({ pk: `JOB#${jobId}`, sk: `PART#${String(index).padStart(6, '0')}` }),
  running: (ownerKey: string) => ({ pk: `OWNER#${ownerKey}`, sk: 'RUNNING' }),
};
