/**
 * What the owner of a job can do with it: poll its status (202 with progress while it runs, the
 * manifest once complete, the failure as an OperationOutcome), cancel it (202; its files go, and
 * every later request is a 404), and download a file (a 307 to a short-lived pre-signed address,
 * so no file byte passes through the service).
 */
import type { Caller } from '../auth/caller';
import { config } from '../config';
import { issue, operationOutcome } from '../fhir/outcome';
import { httpDate } from '../fhir/version-headers';
import { HttpError, notFound } from '../http/errors';
import { json, fhirJson, type HttpResponse } from '../http/response';
import { expiryFrom, ownJob, settle } from './jobs';
import { PART_FILE, type ExportFile, type ExportJob } from './model';
import { exportStore } from './store/current';

/** Where the job's status and files are answered, under the base the client used. */
export const statusPath = (base: string, jobId: string): string => `${base}/$export-status/${jobId}`;
export const filePath = (base: string, jobId: string, name: string): string => `${base}/$export-file/${jobId}/${name}`;

/** How long a download address works: long enough to start a large download, short enough not to be a credential. */
const DOWNLOAD_SECONDS = 300;

export interface Site {
  origin: string;
  base: string;
}

/** The Bulk Data manifest of a complete job: its files type by type (in the order of the export's types), part by part. */
function manifest(job: ExportJob, files: readonly ExportFile[], site: Site) {
  const entry = (f: ExportFile) => ({ type: f.type, url: `${site.origin}${filePath(site.base, job.id, f.name)}`, count: f.count });
  const rank = (f: ExportFile) => job.types.indexOf(f.type);
  const ordered = [...files].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name, 'en', { numeric: true }));
  return {
    transactionTime: job.transactionTime,
    request: job.request,
    requiresAccessToken: true,
    output: ordered.filter((f) => !f.error).map(entry),
    error: ordered.filter((f) => f.error).map(entry),
  };
}

function progressOf(job: ExportJob): string {
  return job.patientsTotal > 0 ? `patients ${job.patientsDone} of ${job.patientsTotal}` : `parts ${job.partsDone} of ${job.partsTotal}`;
}

/**
 * When to poll a running job again (seconds): half the time it has run so far, at least a second and
 * at most the setting. A small export is asked about again while it is still young, so its client
 * sees the manifest within a second or so of it being ready; a long one is polled less and less often.
 */
export function retryAfterOf(job: Pick<ExportJob, 'createdAt'>, now: number): number {
  const ranSeconds = Math.max(0, (now - Date.parse(job.createdAt)) / 1000);
  return Math.min(config().exports.retryAfterSeconds, Math.max(1, Math.ceil(ranSeconds / 2)));
}

/** `GET <status URL>`. */
export async function exportStatus(caller: Caller, jobId: string, site: Site, now = Date.now()): Promise<HttpResponse> {
  const job = await settle(await ownJob(caller, jobId, now), now);
  const retryAfter = retryAfterOf(job, now);
  switch (job.status) {
    case 'in-progress': {
      // Polling well before `Retry-After` is a 429 (half the interval is allowed, for clock slack).
      if (!(await exportStore().jobs.polled(job.id, now, (retryAfter * 1000) / 2))) {
        throw new HttpError(429, `Poll this export at most every ${retryAfter} seconds.`, 'throttled', { headers: { 'Retry-After': String(retryAfter) } });
      }
      return { status: 202, headers: { 'X-Progress': progressOf(job), 'Retry-After': String(retryAfter), 'Cache-Control': 'no-store' } };
    }
    case 'complete': {
      const files = (await exportStore().jobs.parts(job.id)).flatMap((p) => p.files);
      return json(200, manifest(job, files, site), { Expires: httpDate(new Date(job.expiresAt * 1000).toISOString()), 'Cache-Control': 'no-store' });
    }
    case 'failed':
      throw new HttpError(job.failure?.status ?? 500, job.failure?.message ?? 'The export failed.', 'exception');
    default:
      throw notFound(`Export job ${jobId} not found.`);
  }
}

/** `DELETE <status URL>`: the job is cancelled and its files removed. */
export async function cancelExport(caller: Caller, jobId: string, now = Date.now()): Promise<HttpResponse> {
  const job = await ownJob(caller, jobId, now);
  const store = exportStore().jobs;
  const cancelled = job.status === 'in-progress' ? await store.finish(job.id, 'cancelled', { expiresAt: expiryFrom(now) }, job.owner) : await store.cancelFinished(job.id, expiryFrom(now));
  // Another request moved it in between: cancel what it became.
  if (!cancelled && !(await store.cancelFinished(job.id, expiryFrom(now)))) throw notFound(`Export job ${jobId} not found.`);
  await exportStore().files.removeAll(job.id);
  return fhirJson(202, operationOutcome([issue('information', 'informational', `Export job ${jobId} was cancelled and its files removed.`)]));
}

/** `GET <file URL>`: a 307 to the file for a few minutes. */
export async function downloadExportFile(caller: Caller, jobId: string, name: string, now = Date.now()): Promise<HttpResponse> {
  const job = await ownJob(caller, jobId, now);
  const missing = () => notFound(`Export file ${name} not found.`);
  const match = PART_FILE.exec(name);
  if (job.status !== 'complete' || !match) throw missing();
  const part = await exportStore().jobs.part(job.id, Number(match[1]));
  if (!part?.files.some((f) => f.name === name)) throw missing();
  const seconds = Math.max(1, Math.min(DOWNLOAD_SECONDS, job.expiresAt - Math.floor(now / 1000)));
  const location = await exportStore().files.downloadUrl(job.id, name, seconds);
  return { status: 307, headers: { Location: location, 'Cache-Control': 'no-store' } };
}
