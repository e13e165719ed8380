/**
 * The export store port in memory: a twin of the DynamoDB, S3 and SQS adapter for tests that need
 * no engines. The contract suite (test/contract/export-store.ts) holds it to the same behaviour.
 * Each call makes a new, empty store; it runs one call at a time, so nothing lands in between. Its
 * download addresses are `data:` URLs of the object (a test follows them with `fetch` as it would a
 * pre-signed S3 URL), and its queue keeps what was sent until a test takes it.
 */
import { copy, holding, innerMap, nestedEntries } from '../../store/memory';
import { NDJSON, ownerKey, type ExportJob, type ExportMessage, type ExportPart } from '../model';
import type { ExportFiles, ExportJobs, ExportQueue, ExportStore, FileWriter } from './port';

export interface MemoryExportQueue extends ExportQueue {
  /** The messages sent and not yet taken, oldest first; taking them empties the queue. */
  take(): ExportMessage[];
}

export interface MemoryExportStore extends ExportStore {
  queue: MemoryExportQueue;
}

function memoryJobs(): ExportJobs {
  const jobs = new Map<string, ExportJob>();
  const parts = new Map<string, Map<number, ExportPart>>();
  /** Running jobs per owner key. */
  const running = new Map<string, number>();
  /** The parts counted in each job. */
  const counted = new Map<string, Set<number>>();
  const innerSet = (outer: Map<string, Set<number>>, key: string) => {
    const inner = outer.get(key) ?? new Set<number>();
    outer.set(key, inner);
    return inner;
  };

  const release = (job: ExportJob) => {
    const key = ownerKey(job.owner);
    const left = (running.get(key) ?? 1) - 1;
    if (left > 0) running.set(key, left);
    else running.delete(key);
  };

  const store: ExportJobs = {
    create: async (job, newParts, limit) => {
      const key = ownerKey(job.owner);
      if ((running.get(key) ?? 0) >= limit) return false;
      if (jobs.has(job.id)) throw new Error(`export job ${job.id} exists`);
      running.set(key, (running.get(key) ?? 0) + 1);
      jobs.set(job.id, copy(job));
      const own = innerMap(parts, job.id);
      for (const part of newParts) own.set(part.index, copy(part));
      return true;
    },
    get: async (id) => {
      const job = jobs.get(id);
      return job && copy(job);
    },
    parts: async (jobId) => [...(parts.get(jobId)?.values() ?? [])].sort((a, b) => a.index - b.index).map(copy),
    part: async (jobId, index) => {
      const part = parts.get(jobId)?.get(index);
      return part && copy(part);
    },
    completePart: async (jobId, index, files, patients, now) => {
      const part = parts.get(jobId)?.get(index);
      if (!part) return undefined;
      if (!part.done) parts.get(jobId)!.set(index, { ...part, done: true, files: copy([...files]) });
      const job = jobs.get(jobId);
      const done = innerSet(counted, jobId);
      if (job?.status !== 'in-progress' || done.has(index)) return undefined;
      done.add(index);
      const next: ExportJob = { ...job, partsDone: job.partsDone + 1, patientsDone: job.patientsDone + patients, progressAt: now };
      jobs.set(jobId, next);
      return copy(next);
    },
    touch: async (jobId, now) => {
      const job = jobs.get(jobId);
      if (job?.status === 'in-progress') jobs.set(jobId, { ...job, progressAt: Math.max(job.progressAt, now) });
    },
    finish: async (jobId, status, fields) => {
      const job = jobs.get(jobId);
      if (job?.status !== 'in-progress') return false;
      const { failure, ...rest } = job;
      jobs.set(jobId, { ...rest, status, expiresAt: fields.expiresAt, ...(fields.failure ? { failure: copy(fields.failure) } : failure ? { failure } : {}) });
      release(job);
      return true;
    },
    cancelFinished: async (jobId, expiresAt) => {
      const job = jobs.get(jobId);
      if (job?.status !== 'complete' && job?.status !== 'failed') return false;
      jobs.set(jobId, { ...job, status: 'cancelled', expiresAt });
      return true;
    },
    polled: async (jobId, now, gapMs) => {
      const job = jobs.get(jobId);
      if (!job) return false;
      if (job.polledAt !== undefined && now - job.polledAt < gapMs) return false;
      jobs.set(jobId, { ...job, polledAt: now });
      return true;
    },
    remove: async (jobId) => {
      const job = jobs.get(jobId);
      if (job?.status === 'in-progress') release(job);
      jobs.delete(jobId);
      parts.delete(jobId);
      counted.delete(jobId);
    },
    list: async () => [...jobs.values()].map(({ id, status, progressAt, expiresAt }) => ({ id, status, progressAt, expiresAt })),
  };
  return holding(store, { jobs: () => jobs, parts: () => nestedEntries(parts), runningJobs: () => running, countedParts: () => counted });
}

const objectKey = (jobId: string, name: string) => `${jobId}/${name}`;

function memoryFiles(): ExportFiles {
  const objects = new Map<string, { contentType: string; text: string }>();
  const files: ExportFiles = {
    open: (jobId, name): FileWriter => {
      const chunks: string[] = [];
      let open = true;
      const ensureOpen = () => {
        if (!open) throw new Error(`export file ${name} is closed`);
      };
      return {
        write: async (text) => {
          ensureOpen();
          chunks.push(text);
        },
        close: async () => {
          ensureOpen();
          open = false;
          objects.set(objectKey(jobId, name), { contentType: NDJSON, text: chunks.join('') });
        },
        abort: async () => {
          open = false;
        },
      };
    },
    downloadUrl: async (jobId, name) => {
      const object = objects.get(objectKey(jobId, name));
      if (!object) throw Object.assign(new Error(`The specified key does not exist: ${name}`), { name: 'NoSuchKey' });
      return `data:${object.contentType};base64,${Buffer.from(object.text, 'utf8').toString('base64')}`;
    },
    removeAll: async (jobId) => {
      const doomed = [...objects.keys()].filter((key) => key.startsWith(`${jobId}/`));
      doomed.forEach((key) => objects.delete(key));
      return doomed.length;
    },
  };
  return holding(files, { objects: () => objects });
}

function memoryQueue(): MemoryExportQueue {
  let messages: ExportMessage[] = [];
  const queue: MemoryExportQueue = {
    send: async (sent) => void messages.push(...copy([...sent])),
    take: () => {
      const taken = messages;
      messages = [];
      return taken;
    },
  };
  return holding(queue, { messages: () => messages.map((m, i) => [i, m] as const) });
}

export function memoryExportStore(): MemoryExportStore {
  return { jobs: memoryJobs(), files: memoryFiles(), queue: memoryQueue() };
}
