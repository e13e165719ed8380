/**
 * One part of an export, as the worker runs it: the part's patients are checked again (the owner's
 * account as it is now, and each patient still in reach), then each patient's Patient resource, the
 * mobile-health Observations (through the search's own reads and tests, `matchingRows`) and every
 * auxiliary resource (the patient's index rows, one Query per page, then the rows by key) stream into
 * the part's files. Part 0 holds the study (Group) and its data sources (Device). Nothing written
 * after the kick-off is exported, and with `_since` nothing last updated before it.
 *
 * A part is all or nothing: its files are recorded only when every one is complete, and once (a
 * part run twice writes the same objects and counts once). While it runs it tells the job it is
 * alive, so a long part is not taken for a stuck one.
 */
import type { Caller } from '../auth/caller';
import { stillVisiblePatients } from '../auth/scope';
import { auxiliaryStore } from '../auxiliary/store/current';
import { segmentRows } from '../auxiliary/store/port';
import { parseAuxiliarySearch } from '../auxiliary/search/params';
import { loadResource } from '../auxiliary/persist';
import { parseIndex, type IndexRow } from '../auxiliary/rows';
import { isAuxiliaryType } from '../auxiliary/accepted-types';
import { getDataSources } from '../directory/data-sources';
import type { Id, Patient } from '../directory/model';
import { getStudies, getStudy } from '../directory/studies';
import { issue, operationOutcome } from '../fhir/outcome';
import { deviceResource, groupResource, patientResource } from '../fhir/projections/resources';
import { matchesAll, type Criterion } from '../fhir/search';
import { chunksOf } from '../lists';
import { codesById } from '../observations/code-table-cache';
import { ObservationTexts } from '../observations/fhir-observation-text';
import type { StoredObservation } from '../observations/model';
import { matchingRows } from '../observations/search/execute';
import { parseNativeQuery } from '../observations/search/query';
import { failJob, expiryFrom, jobCaller } from './jobs';
import type { ExportJob, ExportPart } from './model';
import { PartFiles } from './part-files';
import { exportStore } from './store/current';

/** How often a running part tells its job it is alive. */
const HEARTBEAT_MS = 30_000;
/** Auxiliary rows read by key at once. */
const AUX_BATCH = 100;

export interface PartOutcome {
  /** The part's files were recorded now (false: done before, or the job stopped). */
  recorded: boolean;
  /** For the audit trail: who the job is for, and whose data the part exported. */
  owner?: ExportJob['owner'];
  patients?: number[];
}

/** Whether a resource last updated at `lastUpdated` belongs to the export: after `_since`, not after the kick-off. */
function inWindow(job: ExportJob, lastUpdated: string): boolean {
  const t = Date.parse(lastUpdated);
  return t <= Date.parse(job.transactionTime) && (job.since === undefined || t > Date.parse(job.since));
}

const filtersOf = (job: ExportJob, type: string) => job.typeFilters.filter(([t]) => t === type).map(([, query]) => query);

const notExported = (diagnostics: string, expression?: string) => operationOutcome([issue('error', 'processing', diagnostics, expression)]);

/** Runs the part; a failure is thrown (the queue runs it again, and the job fails after the last try). */
export async function runPart(jobId: string, index: number, now = Date.now): Promise<PartOutcome> {
  const store = exportStore();
  // Read together: a part of a job that is no longer running is left alone whatever it holds.
  const [job, part] = await Promise.all([store.jobs.get(jobId), store.jobs.part(jobId, index)]);
  if (job?.status !== 'in-progress' || !part) return { recorded: false };
  // Done before: make sure it is counted (a run that stopped between recording and counting it).
  if (part.done) {
    await counted(jobId, index, part.files, part.patientIds.length, now);
    return { recorded: false };
  }
  // The readings' first page is read while the owner and the patients are checked again: rows of
  // a patient the checks leave out are dropped unwritten, and nothing is written before the checks.
  const readings = index > 0 && job.types.includes('Observation') ? readingsOf(job, part.patientIds) : undefined;
  const caller = await jobCaller(job);
  if (!caller) {
    await readings?.drop();
    await failJob(jobId, now(), 'The account that started this export can no longer read data; nothing more is exported.', 403);
    return { recorded: false };
  }
  const files = new PartFiles(jobId, index);
  const heartbeat = setInterval(() => void store.jobs.touch(jobId, now()).catch(() => undefined), HEARTBEAT_MS);
  let exported: number[] = [];
  try {
    if (index === 0) await exportDirectory(job, part, files);
    else exported = await exportPatients(job, part, caller, files, readings);
    const written = await files.close();
    if (!(await counted(jobId, index, written, part.patientIds.length, now))) {
      // Done by another run, or the job stopped meanwhile: a cancelled job's files must not come back.
      if ((await store.jobs.get(jobId))?.status === 'cancelled') await store.files.removeAll(jobId);
      return { recorded: false };
    }
    return { recorded: true, owner: job.owner, patients: exported };
  } catch (error) {
    await readings?.drop();
    await files.abort();
    throw error;
  } finally {
    clearInterval(heartbeat);
  }
}

/** Records the part done and counts it, once; the job complete when it was the last. `true` when it was counted now. */
async function counted(jobId: string, index: number, files: ExportPart['files'], patients: number, now: () => number): Promise<boolean> {
  const after = await exportStore().jobs.completePart(jobId, index, files, patients, now());
  if (after && after.partsDone >= after.partsTotal) await exportStore().jobs.finish(jobId, 'complete', { expiresAt: expiryFrom(now()) }, after.owner);
  return after !== undefined;
}

/** Part 0: the studies and data sources, as their reads return them. */
async function exportDirectory(job: ExportJob, part: ExportPart, files: PartFiles): Promise<void> {
  if (job.types.includes('Group')) {
    for (const study of await getStudies(part.groupIds ?? [])) if (inWindow(job, study.updatedAt)) await files.add(groupResource(study));
  }
  if (job.types.includes('Device')) {
    for (const source of await getDataSources(part.deviceIds ?? [])) if (inWindow(job, source.updatedAt)) await files.add(deviceResource(source));
  }
}

/** Parts 1 and on: the patients' own data. Returns the patients whose data it exported. */
async function exportPatients(job: ExportJob, part: ExportPart, caller: Caller, files: PartFiles, readings: Readings | undefined): Promise<number[]> {
  const study = job.groupId === undefined ? undefined : await getStudy(job.groupId);
  const visible = job.groupId !== undefined && !study ? [] : await stillVisiblePatients(caller, part.patientIds, study);
  const kept = new Set(visible.map((p) => p.id));
  for (const id of part.patientIds) {
    if (!kept.has(id)) await files.error(notExported(`Patient ${id} is no longer within this export's reach (access or enrolment changed after the kick-off); nothing of theirs was exported.`, 'Patient'));
  }
  if (job.types.includes('Patient')) {
    for (const patient of visible) if (inWindow(job, patient.updatedAt)) await files.add(patientResource(patient));
  }
  const auxiliaryTypes = new Set(job.types.filter(isAuxiliaryType));
  const auxiliary = async () => {
    if (auxiliaryTypes.size > 0) for (const patient of visible) await exportAuxiliary(job, patient, auxiliaryTypes, files);
  };
  // Readings and auxiliary resources fill files of their own types: read side by side, both settled
  // before a failure is thrown (nothing is still writing when the part gives its files up).
  const done = await Promise.allSettled([readings ? exportReadings(readings, kept, files) : Promise.resolve(), auxiliary()]);
  const failed = done.find((d) => d.status === 'rejected');
  if (failed) throw failed.reason;
  return visible.map((p) => p.id);
}

/** A part's mobile-health readings as they are read, run by run: begun before they are wanted. */
interface Readings {
  /** The next run of rows (the first already on its way). */
  next(): Promise<IteratorResult<StoredObservation[]>>;
  /** Stops reading (a part that ends without them). */
  drop(): Promise<void>;
}

/** Starts reading the patients' readings the job exports: its window (`_since`, kick-off), its filters, a study's codes. */
function readingsOf(job: ExportJob, patientIds: readonly Id[]): Readings {
  const window = [`le${job.transactionTime}`, ...(job.since ? [`gt${job.since}`] : [])];
  const queries = (filtersOf(job, 'Observation').length > 0 ? filtersOf(job, 'Observation') : ['']).map((text) => {
    const params = new URLSearchParams(text);
    for (const bound of window) params.append('_lastUpdated', bound);
    return parseNativeQuery(params);
  });
  const studyCodes = job.codeIds?.map((id) => ({ id }));
  const runs = matchingRows(queries, patientIds, studyCodes);
  let first: Promise<IteratorResult<StoredObservation[]>> | undefined = runs.next();
  first.catch(() => undefined); // awaited by `next`, or dropped with the part
  return {
    next() {
      const next = first ?? runs.next();
      first = undefined;
      return next;
    },
    async drop() {
      await first?.catch(() => undefined);
      await runs.return(undefined).catch(() => undefined);
    },
  };
}

/** The mobile-health Observations of the patients kept, exactly as a read renders them (the payload untouched). */
async function exportReadings(readings: Readings, kept: ReadonlySet<Id>, files: PartFiles): Promise<void> {
  if (kept.size === 0) return readings.drop();
  const texts = new ObservationTexts();
  for (let run = await readings.next(); !run.done; run = await readings.next()) {
    const rows = run.value.filter((o) => kept.has(o.patientId));
    const codes = await codesById(rows.map((o) => o.codeId));
    // Rendered as they are written: a run's text is never held whole.
    await files.addJson('Observation', (function* () {
      for (const reading of rows) yield texts.of(reading, codes.get(reading.codeId)!);
    })());
  }
}

interface AuxiliaryFilter {
  criteria: readonly Criterion[];
  ids?: readonly string[];
}

/** Every auxiliary resource of the patient in the exported types, as stored (the filters of its type, if any, applied). */
async function exportAuxiliary(job: ExportJob, patient: Patient, types: ReadonlySet<string>, files: PartFiles): Promise<void> {
  const filters = new Map<string, AuxiliaryFilter[]>();
  const filtersFor = (type: string): AuxiliaryFilter[] => {
    let parsed = filters.get(type);
    if (!parsed) {
      parsed = filtersOf(job, type).map((text) => {
        const search = parseAuxiliarySearch(type, new URLSearchParams(text));
        return { criteria: search.criteria, ...(search.ids ? { ids: search.ids } : {}) };
      });
      filters.set(type, parsed);
    }
    return parsed;
  };
  const now = Date.parse(job.transactionTime);
  const matches = (row: IndexRow) => {
    if (!types.has(row.type) || !inWindow(job, row.lastUpdated)) return false;
    const own = filtersFor(row.type);
    if (own.length === 0) return true;
    const index = parseIndex(row);
    return own.some((f) => (!f.ids || f.ids.includes(row.id)) && matchesAll(index, f.criteria, now));
  };
  let batch: IndexRow[] = [];
  const flush = async () => {
    for (const chunk of chunksOf(batch, AUX_BATCH)) {
      const rows = await auxiliaryStore().rows.getMany(chunk.map((r) => r.id));
      const wanted = new Map(chunk.map((r) => [r.id, r]));
      for (const row of rows) {
        // Changed since its index row was read (after the kick-off, then): not part of this export.
        if (wanted.get(row.id)?.version !== row.version) continue;
        await files.add((await loadResource(row)) as { resourceType: string });
      }
    }
    batch = [];
  };
  for await (const row of segmentRows(auxiliaryStore().rows, { patientId: patient.id })) {
    if (!matches(row)) continue;
    batch.push(row);
    if (batch.length >= AUX_BATCH) await flush();
  }
  await flush();
}
