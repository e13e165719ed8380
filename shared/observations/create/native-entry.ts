/**
 * The checks of one mobile-health Observation before it is stored, in the order clients know
 * (each failure is the entry's answer):
 *
 * 1. a valid R5 Observation (400; `id`, `meta`, `effective[x]` and `component` sent by the client
 *    are ignored: the service lifts the effective time and the values from the payload);
 * 2. `subject` a patient the caller may write for (403, also for an unknown patient);
 * 3. `device` a data source of type `personal_device` (400);
 * 4. one coding in the code table, first (400); a standard coding the service shows beside it
 *    for that schema may follow it (a reading read back and posted again), nothing else;
 * 5. the code consented by the patient in a study (403);
 * 6. the payload: Base64 of UTF-8 JSON, header and body valid for the code (400 / 422).
 *
 * Identifier uniqueness and the duplicate reading are decided by the store when the row is written.
 * Lookups are remembered for the request, so a batch of a thousand readings of one patient reads the
 * patient, device and consents once.
 */
import { assertCanWriteForPatient, referenceId } from '../../auth/scope';
import type { Caller } from '../../auth/caller';
import { consentedCodeIds } from '../../directory/consents';
import { getDataSource } from '../../directory/data-sources';
import type { Code, DataSource, Id, Patient } from '../../directory/model';
import type { CheckedSource } from '../../auxiliary/types';
import { issue, type OutcomeIssue } from '../../fhir/outcome';
import { hasErrors, validateResource } from '../../fhir/validation';
import { isHttpError } from '../../http/errors';
import { checkPayload } from '../../omh/check';
import { codeByCoding } from '../code-table-cache';
import { observationStore } from '../store/current';
import type { NewObservation, ObservationIdentifier } from '../model';
import { observationCodings, schemaQuantities } from '../../omh/quantities';
import { keptValues } from '../values';

export type EntryCheck =
  /** `derived`: the payload was built by the service from a FHIR sensor reading (`sensor-reading.ts`). */
  | { ok: true; observation: NewObservation; code: Code; warnings: OutcomeIssue[]; derived?: boolean }
  | { ok: false; status: number; issues: OutcomeIssue[] };

/** What one request has looked up already. */
export interface UploadContext {
  caller: Caller;
  patients: Map<Id, Promise<Patient>>;
  devices: Map<Id, Promise<DataSource | undefined>>;
  consents: Map<Id, Promise<Set<Id>>>;
  /** The FHIR Sources sensor readings name, checked for the caller (`assertCanUseFhirSource`). */
  sources: Map<string, Promise<CheckedSource>>;
}

export function uploadContext(caller: Caller): UploadContext {
  return { caller, patients: new Map(), devices: new Map(), consents: new Map(), sources: new Map() };
}

export function memo<K, V>(map: Map<K, Promise<V>>, key: K, load: () => Promise<V>): Promise<V> {
  let value = map.get(key);
  if (!value) {
    value = load();
    map.set(key, value);
  }
  return value;
}

/** Elements the service sets itself; a client's values are ignored. */
const IGNORED = ['id', 'meta', 'effectiveDateTime', 'effectivePeriod', 'effectiveInstant', 'effectiveTiming', 'component'];

/** Elements a native Observation keeps; others are valid R5 but not stored (the entry says so). */
const STORED = new Set(['resourceType', 'identifier', 'status', 'code', 'subject', 'device', 'valueAttachment', ...IGNORED]);

class EntryFailure extends Error {
  constructor(
    readonly status: number,
    readonly issues: OutcomeIssue[],
  ) {
    super(issues[0]?.diagnostics ?? `status ${status}`);
  }
}

/** Ends an entry's checks with one error issue (the entry's answer). */
export const fail = (status: number, code: OutcomeIssue['code'], message: string, expression?: string): never => {
  throw new EntryFailure(status, [issue('error', code, message, expression)]);
};

/** Ends an entry's checks with the validator's errors (400), when it found any. */
export function assertValid(validation: readonly OutcomeIssue[]): void {
  if (hasErrors(validation)) throw new EntryFailure(400, validation.filter((i) => i.severity === 'error' || i.severity === 'fatal'));
}

type Json = Record<string, unknown>;

export async function checkNativeObservation(resource: unknown, ctx: UploadContext): Promise<EntryCheck> {
  return asEntryCheck(() => check(resource, ctx));
}

/** An entry's checks as a result value: a failure thrown on the way (`fail`, an HttpError) is the entry's answer. */
export async function asEntryCheck(run: () => Promise<EntryCheck>): Promise<EntryCheck> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof EntryFailure) return { ok: false, status: e.status, issues: e.issues };
    if (isHttpError(e)) return { ok: false, status: e.status, issues: e.issues };
    throw e;
  }
}

async function check(resource: unknown, ctx: UploadContext): Promise<EntryCheck> {
  if (typeof resource !== 'object' || resource === null || Array.isArray(resource)) {
    return fail(400, 'structure', 'The resource must be a JSON object.', 'Observation');
  }
  const submitted = resource as Json;
  const kept: Json = Object.fromEntries(Object.entries(submitted).filter(([k]) => !IGNORED.includes(k)));
  assertValid(await validateResource(kept, { expectedType: 'Observation' }));

  const patient = await subjectOf(kept, ctx);
  const device = await deviceOf(kept, ctx);
  const identifiers = identifiersOf(kept);
  const code = await codeOf(kept);
  const consented = await memo(ctx.consents, patient.id, () => consentedCodeIds(patient.id));
  if (!consented.has(code.id)) {
    fail(403, 'forbidden', `Patient ${patient.id} has not consented to share ${code.system}|${code.code} in any study.`, 'Observation.code');
  }
  const payload = checkPayload(code.code, kept.valueAttachment);
  if (!payload.ok) throw new EntryFailure(payload.status, payload.issues);

  const dropped = Object.keys(submitted).filter((k) => !STORED.has(k));
  const warnings = dropped.map((k) =>
    issue('warning', 'informational', `Observation.${k} is not kept for mobile-health Observations; the payload is their content.`, `Observation.${k}`),
  );
  return {
    ok: true,
    code,
    warnings,
    observation: {
      patientId: patient.id,
      codeId: code.id,
      deviceId: device.id,
      status: kept.status as string,
      identifiers,
      data: (kept.valueAttachment as Json).data as string,
      uuid: payload.uuid,
      effective: payload.effective,
      values: keptValues(code.code, payload.payload.body),
    },
  };
}

function referenceOf(resource: Json, element: string): string | undefined {
  const ref = (resource[element] as { reference?: unknown } | undefined)?.reference;
  return typeof ref === 'string' ? ref : undefined;
}

async function subjectOf(resource: Json, ctx: UploadContext): Promise<Patient> {
  const ref = referenceOf(resource, 'subject');
  if (ref === undefined) return fail(400, 'required', 'Observation.subject.reference is required: Patient/<id>.', 'Observation.subject');
  const id = /^Patient\//.test(ref) ? referenceId(ref, 'Patient') : undefined;
  if (id === undefined) return fail(400, 'value', `Observation.subject must reference a Patient (Patient/<id>), not '${ref}'.`, 'Observation.subject.reference');
  return memo(ctx.patients, id, () => assertCanWriteForPatient(ctx.caller, id));
}

async function deviceOf(resource: Json, ctx: UploadContext): Promise<DataSource> {
  const ref = referenceOf(resource, 'device');
  if (ref === undefined) return fail(400, 'required', 'Observation.device.reference is required: Device/<data source id>.', 'Observation.device');
  const id = /^Device\//.test(ref) ? referenceId(ref, 'Device') : undefined;
  const source = id === undefined ? undefined : await memo(ctx.devices, id, () => getDataSource(id));
  if (!source) return fail(400, 'not-found', `Observation.device '${ref}' is not a known data source.`, 'Observation.device.reference');
  if (source.type !== 'personal_device') {
    return fail(400, 'business-rule', `Device/${source.id} is a ${source.type} data source; mobile-health Observations come from a personal_device.`, 'Observation.device.reference');
  }
  return source;
}

function identifiersOf(resource: Json): ObservationIdentifier[] {
  const list = (resource.identifier as Array<{ system?: string; value?: string }> | undefined) ?? [];
  const out = new Map<string, ObservationIdentifier>();
  list.forEach((i, n) => {
    if (typeof i.value !== 'string' || i.value === '') {
      fail(400, 'required', 'Each Observation.identifier needs a value (its system and value are unique across the service).', `Observation.identifier[${n}].value`);
    }
    const identifier: ObservationIdentifier = i.system !== undefined ? { system: i.system, value: i.value! } : { value: i.value! };
    // The identifier's claim is a key: one too long for the store could never be claimed.
    if (!observationStore().canClaim(identifier)) {
      fail(400, 'too-long', 'This Observation.identifier is too long to be stored (system and value together); shorten either.', `Observation.identifier[${n}]`);
    }
    out.set(`${identifier.system ?? ''}\u0000${identifier.value}`, identifier);
  });
  return [...out.values()];
}

async function codeOf(resource: Json): Promise<Code> {
  const coding = ((resource.code as { coding?: Array<{ system?: string; code?: string }> }).coding ?? []);
  if (coding.length === 0 || coding.length > 2) {
    fail(400, 'value', `A mobile-health Observation has one code.coding from the code table, optionally followed by its standard coding (found ${coding.length}).`, 'Observation.code.coding');
  }
  const { system, code } = coding[0]!;
  const found = system && code ? await codeByCoding(system, code) : undefined;
  if (!found) return fail(400, 'code-invalid', `Code not found: ${system ?? '(no system)'}|${code ?? '(no code)'} is not in the code table.`, 'Observation.code.coding[0]');
  const second = coding[1];
  if (second !== undefined) {
    // Any standard coding the schema's readings may show (a blood glucose's follows its unit and specimen): it is not stored, the service shows its own.
    const quantities = schemaQuantities(found.code);
    const standard = quantities ? observationCodings(quantities) : [];
    if (!standard.some((s) => second.system === s.system && second.code === s.code)) {
      const expected = standard.length > 0 ? standard.map((s) => `${s.system}|${s.code}`).join(', ') : 'none';
      fail(400, 'value', `Observation.code.coding[1] may only be a standard coding of ${found.code} (${expected}), found ${second.system ?? '(no system)'}|${second.code ?? '(no code)'}.`, 'Observation.code.coding[1]');
    }
  }
  return found;
}
