/**
 * `GET /FHIR/R5/<Type>?...` on the auxiliary store: the caller's scope (THE scoping module) gives
 * the patients, `_source` narrows them to FHIR Sources, the stored index values decide the rest,
 * and the page comes back as a searchset Bundle with absolute `self`, `next` and `previous` links.
 */
import { randomUUID } from 'node:crypto';
import pMap from 'p-map';
import { patientScope, type ScopeFilter } from '../../auth/scope';
import type { Caller } from '../../auth/caller';
import { getFhirSource } from '../../directory/fhir-sources';
import type { Id } from '../../directory/model';
import { issue, operationOutcome } from '../../fhir/outcome';
import { FHIR_BASES } from '../../http/families';
import { loadResource } from '../persist';
import { getResourceRows, type Segment } from '../store';
import type { Resource } from '../submission';
import { assertAccepted } from '../writes';
import { comparePositions, decodeCursor, encodeCursor, searchFingerprint, type Cursor } from './order';
import { CURSOR_PARAM } from '../../fhir/searchset';
import { parseAuxSearch, type AuxSearch } from './params';
import { allMatches, countMatches, streamMatches, type Match, type Walk } from './walk';

export interface SearchsetBundle extends Resource {
  resourceType: 'Bundle';
  type: 'searchset';
  total?: number;
  link: Array<{ relation: string; url: string }>;
  entry: Array<Record<string, unknown>>;
}

/** A page of results, and whose data it holds (for the audit trail). */
export interface AuxSearchResult {
  bundle: SearchsetBundle;
  patientIds: Id[];
}

/** Parameters that do not change which rows a search finds, or in what order. */
const NOT_FINGERPRINTED = new Set([CURSOR_PARAM, '_count', '_total', '_summary', '_format', '_pretty']);

/**
 * Searches the auxiliary store for resources of `type` (an accepted auxiliary type) as `caller`.
 * `params` are the query parameters as sent; `origin` is the public origin for links; `prefer` the
 * `Prefer` header (`handling=strict` turns ignored parameters into a 400).
 */
export async function searchAuxiliary(caller: Caller, type: string, params: URLSearchParams, origin: string, prefer?: string): Promise<AuxSearchResult> {
  assertAccepted(type);
  const search = parseAuxSearch(type, params, prefer);
  const fingerprint = searchFingerprint(type, params, NOT_FINGERPRINTED);
  const cursor = search.cursor === undefined ? undefined : decodeCursor(search.cursor, fingerprint, search.sort.length);
  const walk: Walk = { type, segments: await segmentsOf(caller, search), criteria: search.criteria, sort: search.sort, now: Date.now() };
  const links = new Links(origin, type, params, fingerprint);
  const outcome = ignoredOutcome(search);

  if (search.countOnly) {
    return { bundle: bundle({ total: await countMatches(walk, search.ids), links: [links.self()], entries: outcome }), patientIds: [] };
  }
  const page = search.sort.length > 0 || search.ids !== undefined ? await collectedPage(walk, search, cursor) : await streamedPage(walk, search, cursor);
  const total = search.total === 'none' ? undefined : (page.total ?? (search.total ? await countMatches(walk, search.ids) : undefined));
  const { entries, patientIds } = await entriesOf(page.matches, type, origin);
  const first = page.matches[0];
  const last = page.matches[page.matches.length - 1];
  const found = bundle({
    ...(total === undefined ? {} : { total }),
    links: [
      links.self(),
      ...(page.hasNext && last ? [links.at('next', { direction: 'next', after: last.position })] : []),
      ...(page.hasPrevious && first ? [links.at('previous', { direction: 'previous', after: first.position })] : []),
    ],
    entries: [...entries, ...outcome],
  });
  return { bundle: found, patientIds };
}

interface Page {
  matches: Match[];
  hasNext: boolean;
  hasPrevious: boolean;
  /** Known without another read. */
  total?: number;
}

/** The patients the caller may see under the scoping parameters, and the sources `_source` names among theirs. */
async function segmentsOf(caller: Caller, search: AuxSearch): Promise<Segment[]> {
  const patients = await scopedPatients(caller, search.scope);
  if (search.sourceIds === undefined) return patients.map((patientId) => ({ patientId }));
  const visible = new Set(patients);
  const sources = await Promise.all(search.sourceIds.map((id) => getFhirSource(id)));
  return sources
    .flatMap((s) => (s && visible.has(s.patientId) ? [{ patientId: s.patientId, sourceId: s.id }] : []))
    .sort((a, b) => a.patientId - b.patientId || a.sourceId - b.sourceId);
}

async function scopedPatients(caller: Caller, filters: readonly ScopeFilter[]): Promise<Id[]> {
  if (filters.length === 0) return (await patientScope(caller)).patientIds;
  const scopes = await Promise.all(filters.map((f) => patientScope(caller, f)));
  return scopes.map((s) => s.patientIds).reduce((acc, ids) => {
    const allowed = new Set(ids);
    return acc.filter((id) => allowed.has(id));
  });
}

async function streamedPage(walk: Walk, search: AuxSearch, cursor: Cursor | undefined): Promise<Page> {
  const found = await streamMatches(walk, cursor, search.count + 1);
  const more = found.length > search.count;
  const matches = found.slice(0, search.count);
  if (cursor?.direction === 'previous') return { matches: matches.reverse(), hasNext: true, hasPrevious: more };
  return { matches, hasNext: more, hasPrevious: cursor !== undefined, ...(!cursor && !more ? { total: matches.length } : {}) };
}

async function collectedPage(walk: Walk, search: AuxSearch, cursor: Cursor | undefined): Promise<Page> {
  const all = await allMatches(walk, search.ids);
  const total = all.length;
  if (!cursor) return { matches: all.slice(0, search.count), hasNext: total > search.count, hasPrevious: false, total };
  const firstAfter = all.findIndex((m) => comparePositions(m.position, cursor.after, walk.sort) > 0);
  const boundary = firstAfter < 0 ? total : firstAfter;
  if (cursor.direction === 'next') {
    return { matches: all.slice(boundary, boundary + search.count), hasNext: total > boundary + search.count, hasPrevious: boundary > 0, total };
  }
  // Rows strictly before the cursor's row end where the cursor's row (or the first row after it) begins.
  const end = all.findIndex((m) => comparePositions(m.position, cursor.after, walk.sort) >= 0);
  const stop = end < 0 ? total : end;
  const start = Math.max(0, stop - search.count);
  return { matches: all.slice(start, stop), hasNext: stop < total, hasPrevious: start > 0, total };
}

/** The page's resources, read by key (strongly consistent); a row deleted meanwhile drops out. */
async function entriesOf(matches: readonly Match[], type: string, origin: string): Promise<{ entries: Array<Record<string, unknown>>; patientIds: Id[] }> {
  const rows = new Map((await getResourceRows(matches.map((m) => m.id))).map((r) => [r.id, r]));
  const found = matches.map((m) => rows.get(m.id)).filter((row) => row !== undefined && row.type === type);
  const resources = await pMap(found, (row) => loadResource(row!), { concurrency: 8 });
  return {
    entries: resources.map((resource) => ({ fullUrl: `${origin}${FHIR_BASES[0]}/${type}/${String(resource.id)}`, resource, search: { mode: 'match' } })),
    patientIds: found.map((row) => row!.patientId),
  };
}

function ignoredOutcome(search: AuxSearch): Array<Record<string, unknown>> {
  if (search.ignored.length === 0) return [];
  const issues = search.ignored.map((u) => issue('warning', 'not-supported', `Search parameter '${u.name}' was ignored: ${u.reason}.`, u.name));
  return [{ fullUrl: `urn:uuid:${randomUUID()}`, resource: operationOutcome(issues), search: { mode: 'outcome' } }];
}

function bundle(parts: { total?: number; links: SearchsetBundle['link']; entries: SearchsetBundle['entry'] }): SearchsetBundle {
  return {
    resourceType: 'Bundle',
    type: 'searchset',
    ...(parts.total === undefined ? {} : { total: parts.total }),
    link: parts.links,
    entry: parts.entries,
  };
}

/** Absolute links of a search: the request itself, and the same search at a cursor. */
class Links {
  constructor(
    private readonly origin: string,
    private readonly type: string,
    private readonly params: URLSearchParams,
    private readonly fingerprint: string,
  ) {}

  private url(params: URLSearchParams): string {
    const query = params.toString();
    return `${this.origin}${FHIR_BASES[0]}/${this.type}${query ? `?${query}` : ''}`;
  }

  self() {
    return { relation: 'self', url: this.url(this.params) };
  }

  at(relation: 'next' | 'previous', cursor: Cursor) {
    const params = new URLSearchParams(this.params);
    params.set(CURSOR_PARAM, encodeCursor(cursor, this.fingerprint));
    return { relation, url: this.url(params) };
  }
}
