/**
 * The request side of a batch upload: a `batch` Bundle of create entries. What makes the whole
 * request unreadable is a 400 for the request (not a Bundle, another Bundle type, `entry` not a
 * list, more entries than the limit); what is wrong with one entry is that entry's 400 (not an
 * object, no resource, a method other than POST, a URL naming another type), and the other entries
 * are processed as usual, as FHIR batch semantics ask.
 */
import { config } from '../../config';
import { issue, type OutcomeIssue } from '../../fhir/outcome';
import { badRequest, HttpError } from '../../http/errors';
import { shown } from '../../shown';
import { isObject } from '../../json';

/** More entries than a Bundle may carry (`config().maxBundleEntries`) is a 413, before any entry is read. */
export function assertBundleSize(entries: number, what: string): void {
  const max = config().maxBundleEntries;
  if (entries > max) throw new HttpError(413, `${what} may carry at most ${max} entries (this one has ${entries}); split it.`, 'too-costly').at('Bundle.entry');
}

export type ParsedEntry =
  /** `fullUrl`: the entry's, which other entries may refer to it by (`references.ts`). */
  | { ok: true; type: string; resource: unknown; fullUrl?: string }
  | { ok: false; status: number; issues: OutcomeIssue[] };

export function parseBatchBundle(body: unknown): ParsedEntry[] {
  if (!isObject(body) || body.resourceType !== 'Bundle') {
    throw badRequest('The request body must be a FHIR Bundle of type batch.', 'structure').at('Bundle');
  }
  if (body.type !== 'batch') {
    const why = body.type === 'transaction' ? ' Transactions are not supported: each reading is stored on its own, so send type batch.' : '';
    throw badRequest(`Bundle.type must be batch, not ${JSON.stringify(body.type ?? null)}.${why}`, 'value').at('Bundle.type');
  }
  if (body.entry === undefined) return [];
  if (!Array.isArray(body.entry)) throw badRequest('Bundle.entry must be a list of entries.', 'structure').at('Bundle.entry');
  assertBundleSize(body.entry.length, 'A batch');
  return body.entry.map((entry, i) => parseEntry(entry, `Bundle.entry[${i}]`));
}

const entryError = (message: string, at: string, code: OutcomeIssue['code'] = 'invalid'): ParsedEntry => ({
  ok: false,
  status: 400,
  issues: [issue('error', code, message, at)],
});

/** The resource type a request URL names: `Observation`, `/Observation`, `Observation?x=y`, `https://host/FHIR/R5/Observation`. */
function typeOfUrl(url: string): string | undefined {
  const path = url.split('?')[0]!.replace(/\/+$/, '');
  const last = path.slice(path.lastIndexOf('/') + 1);
  return /^[A-Z][A-Za-z]+$/.test(last) ? last : undefined;
}

function parseEntry(entry: unknown, at: string): ParsedEntry {
  if (!isObject(entry)) return entryError('Each Bundle entry must be an object.', at, 'structure');
  const request = entry.request;
  if (request !== undefined && !isObject(request)) return entryError('Bundle.entry.request must be an object.', `${at}.request`, 'structure');
  if (request?.method !== undefined && request.method !== 'POST') {
    return entryError(`Only POST (create) entries are accepted in an upload batch, not ${shown(request.method)}.`, `${at}.request.method`, 'not-supported');
  }
  const resource = entry.resource;
  if (!isObject(resource)) return entryError('The entry has no resource.', `${at}.resource`, 'required');
  if (typeof resource.resourceType !== 'string') return entryError('The resource has no resourceType.', `${at}.resource.resourceType`, 'required');
  const url = request?.url;
  if (url !== undefined) {
    const named = typeof url === 'string' ? typeOfUrl(url) : undefined;
    if (named !== resource.resourceType) {
      return entryError(`Bundle.entry.request.url ${JSON.stringify(url)} does not name the resource's type ${resource.resourceType}.`, `${at}.request.url`, 'value');
    }
  }
  return { ok: true, type: resource.resourceType, resource, ...(typeof entry.fullUrl === 'string' ? { fullUrl: entry.fullUrl } : {}) };
}
