/**
 * THE contract of the export store port (shared/export/store/port.ts), run against every adapter:
 * the jobs and parts (their owner's running count, a part counted once, the moves out of
 * `in-progress`), and the files (streamed in, downloaded from the address the store gives, removed
 * with their job). The queue is not part of it: SQS exists only on AWS (the local runtime's queue is
 * tested with the worker, test/integration/export/worker.test.ts).
 *
 * Each test makes its own jobs (random ids and owners) and asserts on those only.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ExportFile, ExportJob, ExportPart } from '../../shared/export/model';
import type { ExportStore } from '../../shared/export/store/port';

export type ExportAdapter = [name: string, make: () => Pick<ExportStore, 'jobs' | 'files'>];

const NOW = 1_800_000_000_000;
const jobId = () => randomBytes(16).toString('base64url');

function jobOf(fields: Partial<ExportJob> = {}): ExportJob {
  return {
    id: jobId(),
    owner: { userId: 900_000_000 + randomInt(90_000_000), kind: 'practitioner' },
    level: 'system',
    request: 'http://localhost:8000/FHIR/R5/$export',
    transactionTime: new Date(NOW).toISOString(),
    types: ['Patient', 'Observation'],
    typeFilters: [['Observation', 'code=omh:heart-rate:2.0']],
    status: 'in-progress',
    partsTotal: 2,
    partsDone: 0,
    patientsTotal: 3,
    patientsDone: 0,
    createdAt: new Date(NOW).toISOString(),
    progressAt: NOW,
    expiresAt: NOW / 1000 + 86_400,
    ...fields,
  };
}

const partsOf = (job: ExportJob): ExportPart[] => [
  { jobId: job.id, index: 1, patientIds: [1, 2], done: false, files: [] },
  { jobId: job.id, index: 2, patientIds: [3], done: false, files: [] },
];

const file = (name: string, count = 2): ExportFile => ({ name, type: 'Observation', count, bytes: 10 * count });

/** Whether the object can be downloaded: S3 signs any key (its address then answers 404); the twin refuses a missing one. */
async function downloadable(files: Pick<ExportStore, 'files'>['files'], job: string, name: string): Promise<boolean> {
  try {
    return (await fetch(await files.downloadUrl(job, name, 60))).status === 200;
  } catch {
    return false;
  }
}

async function text(url: string): Promise<{ body: string; type: string | null }> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return { body: await res.text(), type: res.headers.get('content-type') };
}

export function exportStoreContract(adapters: readonly ExportAdapter[]): void {
  describe.each(adapters)('export store on %s', (_name, make) => {
    describe('jobs', () => {
      it('stores a job with its parts and reads them back', async () => {
        const { jobs } = make();
        const job = jobOf({ groupId: 7, codeIds: [3, 4], since: '2025-01-01T00:00:00.000Z' });
        expect(await jobs.create(job, partsOf(job), 3)).toBe(true);
        expect(await jobs.get(job.id)).toEqual(job);
        expect(await jobs.parts(job.id)).toEqual(partsOf(job));
        expect(await jobs.part(job.id, 2)).toEqual(partsOf(job)[1]);
        expect(await jobs.part(job.id, 9)).toBeUndefined();
        expect(await jobs.get(jobId())).toBeUndefined();
        expect((await jobs.list()).find((s) => s.id === job.id)).toEqual({ id: job.id, status: 'in-progress', progressAt: NOW, expiresAt: job.expiresAt });
      });

      it("refuses a job beyond its owner's running limit, storing nothing of it; a finished job frees its place", async () => {
        const { jobs } = make();
        const owner = jobOf().owner;
        const [a, b, c] = [jobOf({ owner }), jobOf({ owner }), jobOf({ owner })];
        expect(await jobs.create(a, partsOf(a), 2)).toBe(true);
        expect(await jobs.create(b, partsOf(b), 2)).toBe(true);
        expect(await jobs.create(c, partsOf(c), 2)).toBe(false);
        expect(await jobs.get(c.id)).toBeUndefined();
        expect(await jobs.parts(c.id)).toEqual([]);
        // The same account through a client is another owner.
        const viaClient = jobOf({ owner: { ...owner, clientId: 'backend-1' } });
        expect(await jobs.create(viaClient, [], 2)).toBe(true);
        expect(await jobs.finish(a.id, 'complete', { expiresAt: 1 })).toBe(true);
        expect(await jobs.create(c, partsOf(c), 2)).toBe(true);
        expect(await jobs.finish(b.id, 'failed', { expiresAt: 1, failure: { status: 500, message: 'broke' } })).toBe(true);
        expect(await jobs.get(b.id)).toMatchObject({ status: 'failed', expiresAt: 1, failure: { status: 500, message: 'broke' } });
      });

      it('stores a job of many parts whole, and nothing of one refused at the limit', async () => {
        const { jobs } = make();
        const owner = jobOf().owner;
        const many = (job: ExportJob): ExportPart[] => Array.from({ length: 150 }, (_, i) => ({ jobId: job.id, index: i + 1, patientIds: [i], done: false, files: [] }));
        const first = jobOf({ owner, partsTotal: 150 });
        expect(await jobs.create(first, many(first), 1)).toBe(true);
        expect((await jobs.parts(first.id)).map((p) => p.index)).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
        const refused = jobOf({ owner, partsTotal: 150 });
        expect(await jobs.create(refused, many(refused), 1)).toBe(false);
        expect(await jobs.parts(refused.id)).toEqual([]);
        expect(await jobs.get(refused.id)).toBeUndefined();
      });

      it('counts a part done once, with its files as first recorded, and the job moves on; not once the job stopped', async () => {
        const { jobs } = make();
        const job = jobOf();
        await jobs.create(job, partsOf(job), 3);
        const after = await jobs.completePart(job.id, 1, [file('1-Observation-1.ndjson')], 2, NOW + 5);
        expect(after).toMatchObject({ partsDone: 1, patientsDone: 2, progressAt: NOW + 5, status: 'in-progress' });
        expect(after).toEqual({ ...job, partsDone: 1, patientsDone: 2, progressAt: NOW + 5 });
        expect(await jobs.completePart(job.id, 1, [file('1-Observation-1.ndjson', 9)], 2, NOW + 6)).toBeUndefined();
        expect(await jobs.part(job.id, 1)).toEqual({ ...partsOf(job)[0], done: true, files: [file('1-Observation-1.ndjson')] });
        expect(await jobs.get(job.id)).toEqual({ ...job, partsDone: 1, patientsDone: 2, progressAt: NOW + 5 });
        expect(await jobs.completePart(job.id, 7, [], 1, NOW)).toBeUndefined();
        expect(await jobs.finish(job.id, 'cancelled', { expiresAt: 5 })).toBe(true);
        expect(await jobs.completePart(job.id, 2, [file('2-Observation-1.ndjson')], 1, NOW + 7)).toBeUndefined();
        expect(await jobs.get(job.id)).toMatchObject({ status: 'cancelled', partsDone: 1, patientsDone: 2 });
      });

      it('records a part of a stopped job without counting it, and counts each part of a running job once, in any order', async () => {
        const { jobs } = make();
        const job = jobOf();
        await jobs.create(job, partsOf(job), 3);
        const stopped = jobOf({ ...job, id: jobId() });
        await jobs.create(stopped, partsOf(stopped), 3);
        await jobs.finish(stopped.id, 'cancelled', { expiresAt: 5 });
        expect(await jobs.completePart(stopped.id, 1, [file('1-Patient-1.ndjson')], 2, NOW)).toBeUndefined();
        expect(await jobs.part(stopped.id, 1)).toMatchObject({ done: true, files: [file('1-Patient-1.ndjson')] });
        expect(await jobs.completePart(job.id, 2, [file('2-Patient-1.ndjson')], 1, NOW + 1)).toMatchObject({ partsDone: 1 });
        expect(await jobs.completePart(job.id, 2, [file('2-Patient-1.ndjson')], 1, NOW + 2)).toBeUndefined();
        expect(await jobs.completePart(job.id, 1, [file('1-Patient-1.ndjson')], 2, NOW + 3)).toMatchObject({ partsDone: 2, patientsDone: 3 });
      });

      it('keeps progress moving forward only while running', async () => {
        const { jobs } = make();
        const job = jobOf();
        await jobs.create(job, [], 3);
        await jobs.touch(job.id, NOW + 100);
        await jobs.touch(job.id, NOW + 50);
        expect((await jobs.get(job.id))?.progressAt).toBe(NOW + 100);
        await jobs.finish(job.id, 'complete', { expiresAt: 9 });
        await jobs.touch(job.id, NOW + 200);
        expect((await jobs.get(job.id))?.progressAt).toBe(NOW + 100);
        await jobs.touch(jobId(), NOW);
      });

      it('finishes a job its owner is given for as one it reads: once, freeing that place only', async () => {
        const { jobs } = make();
        const owner = jobOf().owner;
        const [a, b] = [jobOf({ owner }), jobOf({ owner })];
        expect(await jobs.create(a, partsOf(a), 1)).toBe(true);
        expect(await jobs.create(b, partsOf(b), 1)).toBe(false);
        expect(await jobs.finish(a.id, 'complete', { expiresAt: 7 }, owner)).toBe(true);
        expect(await jobs.get(a.id)).toMatchObject({ status: 'complete', expiresAt: 7 });
        // Not running any more: nothing moves, and the place freed once is not freed again.
        expect(await jobs.finish(a.id, 'failed', { expiresAt: 8 }, owner)).toBe(false);
        expect(await jobs.get(a.id)).toMatchObject({ status: 'complete', expiresAt: 7 });
        expect(await jobs.create(b, partsOf(b), 1)).toBe(true);
        expect(await jobs.create(jobOf({ owner }), [], 1)).toBe(false);
      });

      it('moves a job out of in-progress once; cancels a finished one only', async () => {
        const { jobs } = make();
        const job = jobOf();
        await jobs.create(job, [], 3);
        expect(await jobs.cancelFinished(job.id, 5)).toBe(false);
        expect(await jobs.finish(job.id, 'complete', { expiresAt: 7 })).toBe(true);
        expect(await jobs.finish(job.id, 'failed', { expiresAt: 8 })).toBe(false);
        expect(await jobs.get(job.id)).toMatchObject({ status: 'complete', expiresAt: 7 });
        expect(await jobs.cancelFinished(job.id, 9)).toBe(true);
        expect(await jobs.get(job.id)).toMatchObject({ status: 'cancelled', expiresAt: 9 });
        expect(await jobs.cancelFinished(job.id, 10)).toBe(false);
        expect(await jobs.finish(jobId(), 'complete', { expiresAt: 1 })).toBe(false);
      });

      it('answers a poll only after the gap since the one before', async () => {
        const { jobs } = make();
        const job = jobOf();
        await jobs.create(job, [], 3);
        expect(await jobs.polled(job.id, NOW, 1000)).toBe(true);
        expect(await jobs.polled(job.id, NOW + 999, 1000)).toBe(false);
        expect(await jobs.polled(job.id, NOW + 1000, 1000)).toBe(true);
        expect((await jobs.get(job.id))?.polledAt).toBe(NOW + 1000);
        expect(await jobs.polled(jobId(), NOW, 1000)).toBe(false);
      });

      it('removes a job with its parts, and a running one gives its place back', async () => {
        const { jobs } = make();
        const owner = jobOf().owner;
        const job = jobOf({ owner });
        await jobs.create(job, partsOf(job), 1);
        await jobs.remove(job.id);
        expect(await jobs.get(job.id)).toBeUndefined();
        expect(await jobs.parts(job.id)).toEqual([]);
        expect((await jobs.list()).some((s) => s.id === job.id)).toBe(false);
        const next = jobOf({ owner });
        expect(await jobs.create(next, [], 1)).toBe(true);
        await jobs.remove(jobId());
      });
    });

    describe('files', () => {
      it('streams lines into an object, stored as application/fhir+ndjson, downloaded from the address given', async () => {
        const { files } = make();
        const id = jobId();
        const writer = files.open(id, '1-Patient-1.ndjson');
        await writer.write('{"resourceType":"Patient","id":"1"}\n');
        await writer.write('{"resourceType":"Patient","id":"2"}\n');
        await writer.close();
        const got = await text(await files.downloadUrl(id, '1-Patient-1.ndjson', 60));
        expect(got.body).toBe('{"resourceType":"Patient","id":"1"}\n{"resourceType":"Patient","id":"2"}\n');
        expect(got.type).toBe('application/fhir+ndjson');
      });

      it('writes a file larger than one upload part whole, in order', async () => {
        const { files } = make();
        const id = jobId();
        const line = (i: number) => `${JSON.stringify({ resourceType: 'Observation', id: String(i), pad: 'x'.repeat(1000) })}\n`;
        const writer = files.open(id, '1-Observation-1.ndjson');
        for (let i = 0; i < 12_000; i++) await writer.write(line(i));
        await writer.close();
        const got = await text(await files.downloadUrl(id, '1-Observation-1.ndjson', 60));
        const lines = got.body.split('\n').filter(Boolean);
        expect(lines.length).toBe(12_000);
        expect(lines.map((l) => Number(JSON.parse(l).id))).toEqual(Array.from({ length: 12_000 }, (_, i) => i));
      });

      it('leaves nothing of an aborted file, replaces a file written again, and removes every file of a job', async () => {
        const { files } = make();
        const id = jobId();
        const other = jobId();
        const aborted = files.open(id, '1-Patient-1.ndjson');
        await aborted.write('{"partial":true}\n');
        await aborted.abort();
        expect(await downloadable(files, id, '1-Patient-1.ndjson')).toBe(false);
        for (const [job, body] of [[id, 'first\n'], [id, 'second\n'], [other, 'kept\n']] as const) {
          const w = files.open(job, '1-Patient-1.ndjson');
          await w.write(body);
          await w.close();
        }
        expect((await text(await files.downloadUrl(id, '1-Patient-1.ndjson', 60))).body).toBe('second\n');
        const w = files.open(id, '1-Device-1.ndjson');
        await w.write('x\n');
        await w.close();
        expect(await files.removeAll(id)).toBe(2);
        expect(await downloadable(files, id, '1-Device-1.ndjson')).toBe(false);
        expect((await text(await files.downloadUrl(other, '1-Patient-1.ndjson', 60))).body).toBe('kept\n');
      });
    });
  });
}
