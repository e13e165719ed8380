/**
 * What the portal does with the hospital's records between reading and writing them, and how it
 * counts the answers: pure functions over plain JSON, shared by the page and the unit tests.
 */

export type Resource = Record<string, unknown> & { resourceType: string; id?: string };

/** A FHIR id: at most 64 characters (docs/api.md#limits). */
export const MAX_ID_LENGTH = 64;
/** The R4 import takes Bundles of at most this many entries from the portal. */
export const IMPORT_CHUNK = 100;
/** Direct R5 writes in flight at once. */
export const WRITE_CONCURRENCY = 6;

/** Whether the hospital's CapabilityStatement `fhirVersion` is an R4 one (4.0.x; 4.3 is R4B, also 4.x). */
export function speaksR4(fhirVersion: string | undefined): boolean {
  return /^4\./.test(fhirVersion ?? '');
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The resource as it is written (docs/portal.md#what-it-reads): an id over 64 characters moves into an `identifier`
 * (system = the hospital's `iss`), and the id becomes the SHA-256 of the old one in hex (64
 * characters), so a restarted run writes the same upstream id again and the store replaces that
 * row instead of adding a second one. Other resources are returned unchanged.
 */
export async function prepareForWrite(resource: Resource, iss: string): Promise<Resource> {
  const id = resource.id;
  if (typeof id !== 'string' || id.length <= MAX_ID_LENGTH) return resource;
  const identifiers = Array.isArray(resource.identifier) ? (resource.identifier as unknown[]) : [];
  return { ...resource, id: await sha256Hex(id), identifier: [...identifiers, { system: iss, value: id }] };
}

/** A batch Bundle for `POST /fhir-import/R4`. */
export function importBundle(resources: readonly Resource[]): Record<string, unknown> {
  return {
    resourceType: 'Bundle',
    type: 'batch',
    entry: resources.map((resource) => ({ resource, request: { method: 'POST', url: resource.resourceType } })),
  };
}

/** The searchset's `next` link, if any. */
export function nextLink(bundle: unknown): string | undefined {
  const links = (bundle as { link?: Array<{ relation?: string; url?: string }> } | undefined)?.link;
  return links?.find((l) => l.relation === 'next')?.url;
}

/** The resources of a searchset page (entries with `search.mode` other than `match` left out). */
export function matches(bundle: unknown): Resource[] {
  const entries = (bundle as { entry?: Array<{ resource?: Resource; search?: { mode?: string } }> } | undefined)?.entry ?? [];
  return entries.filter((e) => e.resource && (e.search?.mode ?? 'match') === 'match').map((e) => e.resource!);
}

interface Issue {
  severity?: string;
  code?: string;
  diagnostics?: string;
  expression?: string[];
}

/** One written record's result. */
export interface WriteResult {
  stored: boolean;
  /** Plain-words reasons: why it failed, or what was left out of a stored record. */
  reasons: string[];
  /** The service had no time for it (a `503` entry): sending it again is safe and may succeed. */
  busy?: boolean;
}

/** Times the portal sends again what the service was too busy for, before counting it as not saved. */
export const BUSY_RETRIES = 5;
export const BUSY_REASON = 'The study service was too busy to save it';

/** Seconds a `Retry-After` header asks for (1 when absent or unreadable, at most 30). */
export function retryAfterSeconds(header: string | null | undefined): number {
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 30) : 1;
}

const issuesOf = (outcome: unknown): Issue[] => {
  const issues = (outcome as { issue?: unknown } | undefined)?.issue;
  return Array.isArray(issues) ? (issues as Issue[]) : [];
};

/** The element an issue names, as the patient sees it: the path after the resource type. */
function fieldOf(issue: Issue): string | undefined {
  const path = issue.expression?.[0];
  if (!path) return undefined;
  return path.replace(/^[A-Z][A-Za-z]*\./, '') || path;
}

/** One issue in plain words. */
export function plainReason(issue: Issue, status?: number): string {
  const field = fieldOf(issue);
  if (issue.severity === 'warning') {
    if (!field) return issue.diagnostics ?? 'A detail was left out';
    // `_issued`: the extensions of a primitive element (R4 JSON's sibling object).
    if (/(^|\.)_[a-zA-Z]/.test(field)) return `Extra details attached to "${field.replace(/(^|\.)_/, '$1')}" have no place in FHIR R5 and were left out`;
    return `"${field}" has no place in FHIR R5 and was left out`;
  }
  switch (issue.code) {
    case 'code-invalid':
      return field ? `The value of "${field}" is not one FHIR R5 allows` : 'A coded value is not one FHIR R5 allows';
    case 'required':
      return field ? `"${field}" is missing` : 'A required detail is missing';
    case 'structure':
    case 'value':
    case 'invalid':
      return field ? `"${field}" is not in a form FHIR R5 accepts` : (issue.diagnostics ?? 'The record is not in a form FHIR R5 accepts');
    case 'not-supported':
      return field ? `"${field}" cannot be converted to FHIR R5` : 'This kind of record cannot be converted to FHIR R5';
    case 'forbidden':
      return 'The study service refused it';
    case 'conflict':
    case 'duplicate':
      return 'It is already stored for another participant';
    default:
      if (status === 403) return 'The study service refused it';
      if (status === 409) return 'It is already stored for another participant';
      return issue.diagnostics ?? `The study service could not save it${status ? ` (error ${status})` : ''}`;
  }
}

/**
 * The result of one write from its status and OperationOutcome: stored on 2xx (with the loss
 * warnings' reasons), else failed with the error issues' reasons.
 */
export function writeResult(status: number, outcome: unknown): WriteResult {
  if (status === 503) return { stored: false, busy: true, reasons: [BUSY_REASON] };
  const issues = issuesOf(outcome);
  if (status >= 200 && status < 300) {
    return { stored: true, reasons: issues.filter((i) => i.severity === 'warning' && i.expression?.length).map((i) => plainReason(i)) };
  }
  const errors = issues.filter((i) => i.severity === 'error' || i.severity === 'fatal');
  return { stored: false, reasons: errors.length > 0 ? errors.map((i) => plainReason(i, status)) : [plainReason({}, status)] };
}

/** `"201 Created"` → 201; anything unreadable → 0. */
export const entryStatus = (status: unknown): number => (typeof status === 'string' ? Number.parseInt(status, 10) || 0 : 0);

/** The per-entry results of an import's batch-response (one per sent entry, in order). */
export function importResults(response: unknown, sent: number): WriteResult[] {
  const entries = (response as { entry?: Array<{ response?: { status?: string; outcome?: unknown } }> } | undefined)?.entry ?? [];
  return Array.from({ length: sent }, (_, i) => {
    const answer = entries[i]?.response;
    if (!answer) return { stored: false, reasons: ['The study service gave no answer for it'] };
    return writeResult(entryStatus(answer.status), answer.outcome);
  });
}

export interface Tally {
  /** Every record stored, those with losses included. */
  stored: number;
  /** Of those, the ones stored with something left out. */
  storedWithLoss: number;
  failed: number;
  /** Failure reasons and loss reasons, with how many records each concerns. */
  failures: Map<string, number>;
  losses: Map<string, number>;
}

export const emptyTally = (): Tally => ({ stored: 0, storedWithLoss: 0, failed: 0, failures: new Map(), losses: new Map() });

export function addResult(tally: Tally, result: WriteResult): void {
  const bucket = result.stored ? tally.losses : tally.failures;
  for (const reason of new Set(result.reasons)) bucket.set(reason, (bucket.get(reason) ?? 0) + 1);
  if (!result.stored) tally.failed++;
  else {
    tally.stored++;
    if (result.reasons.length > 0) tally.storedWithLoss++;
  }
}

/** The most frequent reasons, most frequent first (ties in first-seen order). */
export function topReasons(reasons: ReadonlyMap<string, number>, limit = 5): Array<{ reason: string; count: number }> {
  return [...reasons.entries()]
    .map(([reason, count]) => ({ reason, count }))
    .sort((a, b) => b.count - a.count)
    .slice(0, limit);
}
