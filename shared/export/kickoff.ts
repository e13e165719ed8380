/**
 * Starting an export: the caller's scope is resolved once, here, through THE scoping module (the
 * patients, and for a Group export the study's codes), cut into parts of a few patients, recorded
 * with the job (refused with a 429 when the caller already runs the allowed number of jobs), and
 * handed to the worker. What the parts read later is fixed now: the patients, the types, the filters
 * and the kick-off instant.
 */
import { randomBytes } from 'node:crypto';
import type { Caller } from '../auth/caller';
import { scopesCover } from '../auth/claims';
import { assertCanReadStudyScope, dataSourceScope, patientScope, studyScope, type ScopeFilter } from '../auth/scope';
import { config } from '../config';
import type { Id } from '../directory/model';
import { listStudyCodes, listStudyDataSourceIds } from '../directory/studies';
import { forbidden, HttpError } from '../http/errors';
import { chunksOf } from '../lists';
import { failJob, ownerOf } from './jobs';
import type { ExportJob, ExportLevel, ExportMessage, ExportPart } from './model';
import type { ExportRequest } from './params';
import { exportStore } from './store/current';
import { QUEUE_BATCH } from './store/port';

/** Types that come from the patients' own data (one part per few patients); Group and Device come from part 0. */
const PATIENT_TYPES = (types: readonly string[]) => types.filter((t) => t !== 'Group' && t !== 'Device');

/** How long an in-progress job's records live at most (TTL), whatever happens to the worker. */
const RUNNING_TTL_DAYS = 30;

export interface KickOff {
  level: ExportLevel;
  groupId?: Id;
  request: ExportRequest;
  /** The kick-off URL as sent, on the service's origin. */
  requestUrl: string;
}

/** Who and what the export covers, resolved for the caller. */
async function coverage(caller: Caller, k: KickOff): Promise<{ patientIds: Id[]; groupIds: Id[]; deviceIds: Id[]; codeIds?: Id[] }> {
  const narrowed: ScopeFilter = k.request.patients ? { patient: k.request.patients } : {};
  const wants = (type: string) => k.request.types.includes(type);
  if (k.level === 'group') {
    // The study's own lists need no caller: read beside the access check, released only after it.
    const studyId = k.groupId!;
    const [readable, codes, deviceIds] = await Promise.allSettled([
      assertCanReadStudyScope(caller, studyId, narrowed),
      listStudyCodes(studyId),
      wants('Device') ? listStudyDataSourceIds(studyId) : Promise.resolve([]),
    ]);
    const value = <T>(r: PromiseSettledResult<T>): T => {
      if (r.status === 'rejected') throw r.reason;
      return r.value;
    };
    const { scope } = value(readable);
    return { patientIds: scope.patientIds, groupIds: wants('Group') ? [studyId] : [], deviceIds: value(deviceIds), codeIds: value(codes).map((c) => c.id) };
  }
  const [scope, groupIds, deviceIds] = await Promise.all([
    patientScope(caller, narrowed),
    wants('Group') ? studyScope(caller, narrowed) : Promise.resolve([]),
    wants('Device') ? dataSourceScope(caller, narrowed) : Promise.resolve([]),
  ]);
  return { patientIds: scope.patientIds, groupIds, deviceIds };
}

/**
 * The request within a backend service's token: of the types, those its system scopes name (a
 * `_type` naming another is a 403, as a search of it would be); the filters of the types left.
 */
function withinScopes(caller: Caller, request: KickOff['request']): KickOff['request'] {
  const types = caller.kind === 'practitioner' ? caller.system?.types : undefined;
  if (types === undefined) return request;
  const covered = (type: string) => scopesCover(types, type);
  const outside = request.explicitTypes?.filter((t) => !covered(t)) ?? [];
  if (outside.length > 0) throw forbidden(`The token's scopes do not cover ${outside.join(', ')}: ask for system/<Type>.rs.`).at('_type');
  const allowed = request.types.filter(covered);
  if (allowed.length === 0) throw forbidden("The token's scopes cover none of the exported types.").at('_type');
  return { ...request, types: allowed, typeFilters: request.typeFilters.filter(([t]) => covered(t)) };
}

/**
 * What the kick-off hands the worker: a job of a few parts, its parts themselves (one send, as one
 * message would be), so a small export starts at once instead of after a fan-out's own delivery;
 * a larger job, one message that the worker fans out, so the kick-off stays one send however many
 * parts there are.
 */
function firstMessages(job: ExportJob, parts: readonly ExportPart[]): ExportMessage[] {
  if (parts.length === 0 || parts.length > QUEUE_BATCH) return [{ kind: 'start', jobId: job.id }];
  return parts.map((p) => ({ kind: 'part', jobId: job.id, part: p.index }));
}

/** Starts the export; the job as recorded. 429 (with `Retry-After`) when the caller runs too many. */
export async function startExport(caller: Caller, asked: KickOff, now = Date.now()): Promise<ExportJob> {
  const settings = config().exports;
  const k = { ...asked, request: withinScopes(caller, asked.request) };
  const covered = await coverage(caller, k);
  const id = randomBytes(16).toString('base64url');
  const directory = covered.groupIds.length > 0 || covered.deviceIds.length > 0;
  const patientChunks = PATIENT_TYPES(k.request.types).length > 0 ? chunksOf(covered.patientIds, settings.patientsPerPart) : [];
  const parts: ExportPart[] = [
    ...(directory ? [{ jobId: id, index: 0, patientIds: [], groupIds: covered.groupIds, deviceIds: covered.deviceIds, done: false, files: [] }] : []),
    ...patientChunks.map((patientIds, i) => ({ jobId: id, index: i + 1, patientIds, done: false, files: [] })),
  ];
  const job: ExportJob = {
    id,
    owner: ownerOf(caller),
    level: k.level,
    ...(k.groupId !== undefined ? { groupId: k.groupId } : {}),
    request: k.requestUrl,
    transactionTime: new Date(now).toISOString(),
    ...(k.request.since ? { since: k.request.since } : {}),
    types: k.request.types,
    typeFilters: k.request.typeFilters,
    ...(covered.codeIds ? { codeIds: covered.codeIds } : {}),
    status: 'in-progress',
    partsTotal: parts.length,
    partsDone: 0,
    patientsTotal: patientChunks.length > 0 ? covered.patientIds.length : 0,
    patientsDone: 0,
    createdAt: new Date(now).toISOString(),
    progressAt: now,
    expiresAt: Math.floor(now / 1000) + RUNNING_TTL_DAYS * 86_400,
  };
  if (!(await exportStore().jobs.create(job, parts, settings.maxJobsPerCaller))) {
    throw new HttpError(429, `You already run ${settings.maxJobsPerCaller} exports; wait for one to finish (or cancel one) and try again.`, 'throttled', {
      headers: { 'Retry-After': String(settings.retryAfterSeconds * 12) },
    });
  }
  try {
    await exportStore().queue.send(firstMessages(job, parts));
  } catch (error) {
    await failJob(id, now, 'The export could not be handed to the worker.');
    throw new HttpError(503, 'The export could not be started just now; please retry.', 'transient', { cause: error });
  }
  return job;
}
