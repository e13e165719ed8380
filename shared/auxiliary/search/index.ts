/**
 * `GET /FHIR/R5/<Type>?...` on the auxiliary store: the caller's scope (THE scoping module) gives
 * the patients, `_source` narrows them to FHIR Sources, the stored index values decide the rest,
 * and the page comes back as a searchset Bundle with absolute `self`, `next` and `previous` links.
 * `findAuxiliary` is the same search as a typed domain function (a patient's resources of a type,
 * a page and an opaque cursor), for the assistants' tools.
 */
import pMap from 'p-map';
import { config } from '../../config';
import { invalidQuery } from '../../failures';
import { patientScope, type ScopeFilter } from '../../auth/scope';
import type { Caller } from '../../auth/caller';
import { getFhirSource } from '../../directory/fhir-sources';
import type { Id } from '../../directory/model';
import { cursorOf, cutPage, linkedSearch, queryCursors, rowsFrom, searchsetBundle, type Cursor, type SearchSite, type SearchsetBundle } from '../../fhir/searchset';
import { loadResource } from '../persist';
import { auxiliaryStore } from '../store/current';
import type { Segment } from '../store/port';
import type { Resource } from '../submission';
import { assertAccepted } from '../writes';
import { auxiliaryPositions, comparePositions, type Position } from './order';
import { parseAuxiliarySearch, type AuxiliarySearch } from './params';
import { allMatches, countMatches, streamMatches, type Match, type Walk } from './walk';

export type { SearchsetBundle } from '../../fhir/searchset';

/** A page of results, and whose data it holds (for the audit trail). */
export interface AuxiliarySearchResult {
  bundle: SearchsetBundle;
  patientIds: Id[];
}

/**
 * Searches the auxiliary store for resources of `type` (an accepted auxiliary type) as `caller`.
 * `params` are the query parameters as sent; `site` the public origin and the FHIR base the client
 * used, for links; `prefer` the `Prefer` header (`handling=strict` turns ignored parameters into a 400).
 */
export async function searchAuxiliary(caller: Caller, type: string, params: URLSearchParams, site: SearchSite, prefer?: string): Promise<AuxiliarySearchResult> {
  assertAccepted(type);
  const search = parseAuxiliarySearch(type, params, prefer);
  const linked = linkedSearch(site, type, params, auxiliaryPositions(search.sort.length));
  const cursor = cursorOf(linked, search.cursor);
  if (search.countOnly) {
    const walk = await walkOf(caller, search);
    return { bundle: searchsetBundle(linked, { total: await countMatches(walk, search.ids), resources: [], ignored: search.ignored }), patientIds: [] };
  }
  const found = await pageOf(caller, search, cursor);
  const bundle = searchsetBundle(linked, { resources: found.resources, total: found.total, next: found.next, previous: found.previous, ignored: search.ignored });
  return { bundle, patientIds: found.patientIds };
}

/** A patient's resources of one type, a page at a time: the typed query of `findAuxiliary`. */
export interface AuxiliaryQuery {
  type: string;
  patientId: Id;
  /** Resources at most (1 to the service's largest page). */
  limit: number;
  /** The cursor of the previous answer to this same query. */
  cursor?: string;
}

export interface FoundAuxiliary {
  resources: Resource[];
  /** Every match. */
  total: number;
  /** Opaque; bound to the query. Absent after the last resource. */
  cursor?: string;
  patientIds: Id[];
}

/** A page of the patient's resources of the type, in the search's default order, with the total, as a search of `patient=<id>` finds them for the caller. */
export async function findAuxiliary(caller: Caller, q: AuxiliaryQuery): Promise<FoundAuxiliary> {
  assertAccepted(q.type);
  const max = config().maxPageSize;
  if (!Number.isSafeInteger(q.limit) || q.limit < 1 || q.limit > max) throw invalidQuery(`limit is a whole number from 1 to ${max}.`, 'limit');
  const search: AuxiliarySearch = { type: q.type, scope: [{ patient: String(q.patientId) }], criteria: [], sort: [], count: q.limit, countOnly: false, total: 'accurate', ignored: [] };
  const cursors = queryCursors(q.type, JSON.stringify(['patient', q.patientId]), auxiliaryPositions(0));
  const found = await pageOf(caller, search, cursors.read(q.cursor));
  return { resources: found.resources, total: found.total!, patientIds: found.patientIds, ...(found.next ? { cursor: cursors.write(found.next) } : {}) };
}

async function walkOf(caller: Caller, search: AuxiliarySearch): Promise<Walk> {
  return { type: search.type, segments: await segmentsOf(caller, search), criteria: search.criteria, sort: search.sort, now: Date.now() };
}

/** A page of the search from the cursor: its resources (read by key), the total as the search asks for it, its cursors. */
async function pageOf(caller: Caller, search: AuxiliarySearch, cursor: Cursor<Position> | undefined): Promise<Omit<Page, 'rows'> & { resources: Resource[]; patientIds: Id[] }> {
  const walk = await walkOf(caller, search);
  const page = search.sort.length > 0 || search.ids !== undefined ? await collectedPage(walk, search, cursor) : await streamedPage(walk, search, cursor);
  const total = search.total === 'none' ? undefined : (page.total ?? (search.total ? await countMatches(walk, search.ids) : undefined));
  const { resources, patientIds } = await resourcesOf(page.rows, search.type);
  return { resources, patientIds, ...(total === undefined ? {} : { total }), ...(page.next ? { next: page.next } : {}), ...(page.previous ? { previous: page.previous } : {}) };
}

interface Page {
  rows: Match[];
  next?: Cursor<Position>;
  previous?: Cursor<Position>;
  /** Known without another read. */
  total?: number;
}

/** The patients the caller may see under the scoping parameters, and the sources `_source` names among theirs. */
async function segmentsOf(caller: Caller, search: AuxiliarySearch): Promise<Segment[]> {
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

const positionOfMatch = (m: Match) => m.position;

async function streamedPage(walk: Walk, search: AuxiliarySearch, cursor: Cursor<Position> | undefined): Promise<Page> {
  const found = await streamMatches(walk, cursor, search.count + 1);
  const page = await cutPage(found, search.count, cursor, positionOfMatch);
  return { ...page, ...(!cursor && !page.more ? { total: page.rows.length } : {}) };
}

async function collectedPage(walk: Walk, search: AuxiliarySearch, cursor: Cursor<Position> | undefined): Promise<Page> {
  const all = await allMatches(walk, search.ids);
  const following = rowsFrom(all, cursor, (m: Match, at: Position) => comparePositions(m.position, at, walk.sort));
  return { ...(await cutPage(following, search.count, cursor, positionOfMatch)), total: all.length };
}

/** The page's resources, read by key (strongly consistent); a row deleted meanwhile drops out. */
async function resourcesOf(matches: readonly Match[], type: string): Promise<{ resources: Resource[]; patientIds: Id[] }> {
  const rows = new Map((await auxiliaryStore().rows.getMany(matches.map((m) => m.id))).map((r) => [r.id, r]));
  const found = matches.map((m) => rows.get(m.id)).filter((row) => row !== undefined && row.type === type);
  const resources = await pMap(found, (row) => loadResource(row!), { concurrency: 8 });
  return { resources, patientIds: found.map((row) => row!.patientId) };
}
