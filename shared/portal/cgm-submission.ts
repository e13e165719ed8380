/**
 * The CGM guide's data submission from the patient's report (docs/portal.md#sending-to-the-hospital):
 * which resources go, about whom, in which FHIR version, and how the hospital takes them. Pure
 * functions over JSON, shared by the page and the unit tests.
 *
 * - **What**: the summary panel, its six members and the DiagnosticReport carrying the PDF. The
 *   profile Observation stays home: it is coded in the service's own code system, which a hospital
 *   does not know, and the PDF draws it; the summary's `hasMember` drops its reference.
 * - **About whom**: every `subject` becomes the hospital's patient, `Patient/<id from the launch>`.
 * - **Version**: R4 (cgm-r4.ts) when the CapabilityStatement's `fhirVersion` is 4.x, else R5 as is.
 * - **How** (`hospitalWrites`): the guide's `$submit-cgm-bundle` when the CapabilityStatement lists
 *   it, else a `transaction` at the base, else `batch`, else one `POST [base]/<Type>` each. A
 *   transaction resolves the entries' `urn:uuid:` references itself; a batch or single POSTs cannot,
 *   so the entries go in waves (`submissionWaves`: each after those it refers to), each wave's
 *   references rewritten to where the hospital saved the earlier ones (`withSavedReferences`).
 */
import { CGM_IG, CGM_PROFILES, profileUrl } from '../cgm/codes';
import { isObject } from '../json';
import { isAgpProfile, reportEntries, type ReportEntry } from './cgm-view';
import { r4Of } from './cgm-r4';
import { speaksR4, type Resource } from './records';

/** How a hospital takes the submission, most preferred first. */
export type WriteRoute = 'submit-cgm-bundle' | 'transaction' | 'batch' | 'each';

export const SUBMIT_OPERATION = 'submit-cgm-bundle';
export const SUBMIT_OPERATION_DEFINITION = `${CGM_IG}/OperationDefinition/${SUBMIT_OPERATION}`;

export interface HospitalWrites {
  fhirVersion: string;
  r4: boolean;
  route: WriteRoute;
}

/** What the hospital's CapabilityStatement says about taking the submission. */
export function hospitalWrites(capabilities: unknown): HospitalWrites {
  const statement = isObject(capabilities) ? capabilities : {};
  const fhirVersion = typeof statement.fhirVersion === 'string' ? statement.fhirVersion : '';
  const servers = (Array.isArray(statement.rest) ? statement.rest : []).filter((r) => isObject(r) && (r.mode ?? 'server') === 'server') as Array<Record<string, unknown>>;
  const listed = (key: 'operation' | 'interaction') => servers.flatMap((r) => (Array.isArray(r[key]) ? r[key] : [])).filter(isObject);
  const submits = listed('operation').some((o) => o.name === SUBMIT_OPERATION || o.definition === SUBMIT_OPERATION_DEFINITION);
  const interactions = new Set(listed('interaction').map((i) => i.code));
  const route: WriteRoute = submits ? 'submit-cgm-bundle' : interactions.has('transaction') ? 'transaction' : interactions.has('batch') ? 'batch' : 'each';
  return { fhirVersion, r4: speaksR4(fhirVersion), route };
}

export type SubmissionEntry = ReportEntry;

/** Every `reference` string inside a value. */
export function referencesOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(referencesOf);
  if (!isObject(value)) return [];
  return Object.entries(value).flatMap(([key, item]) => (key === 'reference' && typeof item === 'string' ? [item] : referencesOf(item)));
}

/** A copy of a value with each reference `map` knows replaced, and each reference `drop` names removed from its list. */
function rewritten(value: unknown, map: (reference: string) => string, drop: (reference: string) => boolean): unknown {
  if (Array.isArray(value)) return value.filter((v) => !(isObject(v) && typeof v.reference === 'string' && drop(v.reference))).map((v) => rewritten(v, map, drop));
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, key === 'reference' && typeof item === 'string' ? map(item) : rewritten(item, map, drop)]));
}

/**
 * The entries to send, in the report's order: the summary, its members and the DiagnosticReport,
 * about the hospital's patient, in R4 when the hospital speaks it.
 */
export function submissionEntries(report: unknown, hospitalPatient: string, r4: boolean): SubmissionEntry[] {
  const entries = reportEntries(report);
  const left = new Set(entries.filter((e) => isAgpProfile(e.resource)).map((e) => e.fullUrl));
  const subject = `Patient/${hospitalPatient}`;
  return entries
    .filter((e) => !left.has(e.fullUrl) && (e.resource.resourceType === 'Observation' || e.resource.resourceType === 'DiagnosticReport'))
    .map(({ fullUrl, resource }) => {
      const about = { ...(rewritten(resource, (r) => r, (r) => left.has(r)) as Resource), subject: { reference: subject } };
      return { fullUrl, resource: r4 ? r4Of(about).resource : about };
    });
}

/** A `transaction` (or `batch`) Bundle POSTing each entry; in R4 a transaction names the guide's submission profile. */
export function submissionBundle(entries: readonly SubmissionEntry[], type: 'transaction' | 'batch', r4: boolean, timestamp: string): Resource {
  return {
    resourceType: 'Bundle',
    ...(r4 && type === 'transaction' ? { meta: { profile: [profileUrl(CGM_PROFILES.submissionBundle)] } } : {}),
    type,
    timestamp,
    entry: entries.map(({ fullUrl, resource }) => ({ fullUrl, resource, request: { method: 'POST', url: resource.resourceType } })),
  };
}

/** The entries in waves: each entry after every entry whose `fullUrl` it refers to (the members, then the summary, then the report). */
export function submissionWaves(entries: readonly SubmissionEntry[]): SubmissionEntry[][] {
  const fullUrls = new Set(entries.map((e) => e.fullUrl));
  const needs = new Map(entries.map((e) => [e.fullUrl, new Set(referencesOf(e.resource).filter((r) => fullUrls.has(r)))]));
  const waves: SubmissionEntry[][] = [];
  const placed = new Set<string>();
  while (placed.size < entries.length) {
    const wave = entries.filter((e) => !placed.has(e.fullUrl) && [...needs.get(e.fullUrl)!].every((r) => placed.has(r)));
    if (wave.length === 0) throw new RangeError('the entries refer to one another in a circle');
    for (const e of wave) placed.add(e.fullUrl);
    waves.push(wave);
  }
  return waves;
}

/** The entries an entry refers to that are in the submission. */
export const entryNeeds = (entry: SubmissionEntry, entries: readonly SubmissionEntry[]): SubmissionEntry[] => {
  const references = new Set(referencesOf(entry.resource));
  return entries.filter((e) => references.has(e.fullUrl));
};

/** A resource whose references to earlier entries name where the hospital saved them (`Observation/123`). */
export const withSavedReferences = (resource: Resource, saved: ReadonlyMap<string, string>): Resource =>
  rewritten(resource, (r) => saved.get(r) ?? r, () => false) as Resource;

/**
 * A saved resource's reference from a `Location` (a header, or a response entry's `location`):
 * `Observation/123` from `Observation/123/_history/1` or from the same under the FHIR base URL.
 */
export function savedReference(location: unknown, base: string): string | undefined {
  if (typeof location !== 'string' || !location) return undefined;
  const relative = location.startsWith(`${base}/`) ? location.slice(base.length + 1) : location;
  const match = /^([A-Z][A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})(\/_history\/[^/]+)?$/.exec(relative);
  return match ? `${match[1]}/${match[2]}` : undefined;
}
