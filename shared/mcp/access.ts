/**
 * Whom a tool may talk about, decided by the scoping module every FHIR read uses
 * (shared/auth/scope.ts). A patient or a study the caller may not see answers exactly as one that
 * does not exist: the same refusal, the same words, so another organization's ids are never named,
 * counted or summarised, and their existence cannot be told from the answers.
 */
import { isPatient, isPractitioner, type Caller, type PractitionerCaller } from '../auth/caller';
import { scopesCover } from '../auth/claims';
import { assertCanReadPatient, assertCanReadStudy } from '../auth/scope';
import type { Id, Patient, Study } from '../directory/model';
import { isHttpError } from '../http/errors';
import { ToolRefusal } from './tool';

const unseenPatient = (id: Id) => new ToolRefusal(`No patient ${id} is visible to you: check the id with get_patient or list_study_patients.`);
const unnamedPatient = () => new ToolRefusal('Name the patient: patientId (list_study_patients shows the patients of a study).');
const unseenStudy = (id: Id) => new ToolRefusal(`No study ${id} is visible to you: list_studies shows the studies you may see.`);

/** A 404 of the scoping module (a missing or invisible record) as the tool's refusal; anything else as it is. */
async function orUnseen<T>(read: Promise<T>, refusal: () => ToolRefusal): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (isHttpError(error) && (error.status === 404 || error.status === 403)) throw refusal();
    throw error;
  }
}

/**
 * The patient a tool is about: the one named, if the caller may see them, or a patient caller
 * themselves when none is named. A practitioner must name one.
 */
export async function visiblePatient(caller: Caller, patientId: Id | undefined): Promise<Patient> {
  const id = patientId ?? (isPatient(caller) ? caller.patientId : undefined);
  if (id === undefined) throw unnamedPatient();
  return orUnseen(assertCanReadPatient(caller, id), () => unseenPatient(id));
}

/**
 * A tool's reads of a patient, run beside the check that the caller may see them (one round trip
 * less a call): `read` gets the patient's id at once, and its result is given only once the
 * patient is seen; an unseen patient is the refusal, whatever `read` found or failed with. `read`
 * must reach the data through the domain functions the FHIR API runs, which decide the caller's
 * access again (a search scoped to the caller, `$stats`' subject check), so it never finds what
 * the caller may not see; the check here is for the refusal's words. Nothing is recorded
 * (`touched`) until it returns.
 */
export async function readVisiblePatient<T>(caller: Caller, patientId: Id | undefined, read: (id: Id) => Promise<T>): Promise<{ patientId: Id; result: T }> {
  const id = patientId ?? (isPatient(caller) ? caller.patientId : undefined);
  if (id === undefined) throw unnamedPatient();
  const [seen, found] = await Promise.allSettled([visiblePatient(caller, id), (async () => read(id))()]);
  if (seen.status === 'rejected') throw seen.reason;
  if (found.status === 'rejected') throw found.reason;
  return { patientId: id, result: found.value };
}

export async function visibleStudy(caller: Caller, studyId: Id): Promise<Study> {
  return orUnseen(assertCanReadStudy(caller, studyId), () => unseenStudy(studyId));
}

/** Tools only practitioners may use: refused to a patient whatever the arguments, before any is read. */
export function practitionerOnly(caller: Caller, what: string): PractitionerCaller {
  if (!isPractitioner(caller)) throw new ToolRefusal(`Only practitioners may ${what}.`);
  return caller;
}

/** A backend service's token reads only the FHIR types its scopes cover: as the FHIR API refuses, the tool does. */
export function assertTypesCovered(caller: Caller, types: readonly string[]): void {
  if (!isPractitioner(caller) || !caller.system) return;
  const missing = types.filter((type) => !scopesCover(caller.system!.types, type));
  if (missing.length > 0) throw new ToolRefusal(`The token's scopes do not cover ${missing.join(', ')}: ask for ${missing.map((t) => `system/${t}.rs`).join(' ')}.`);
}
