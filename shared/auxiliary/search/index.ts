/**
 * `GET /FHIR/R5/<Type>?...` on the auxiliary store: the caller's scope (THE scoping module) gives
 * the patients, `_source` narrows them to FHIR Sources, the stored index values decide the rest,
 * and the page comes back as a searchset Bundle with absolute `self`, `next` and `previous` links.
 */
import pMap from 'p-map';
import { patientScope, type ScopeFilter } from '../../auth/scope';
import type { Caller } from '../../auth/caller';
import { getFhirSource } from '../../directory/fhir-sources';
import type { Id } from '../../directory/model';
import { cursorOf, cutPage, linkedSearch, rowsFrom, searchsetBundle, type Cursor, type SearchSite, type SearchsetBundle } from '../../fhir/searchset';
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
  const walk: Walk = { type, segments: await segmentsOf(caller, search), criteria: search.criteria, sort: search.sort, now: Date.now() };

  if (search.countOnly) {
    return { bundle: searchsetBundle(linked, { total: await countMatches(walk, search.ids), resources: [], ignored: search.ignored }), patientIds: [] };
  }
  const page = search.sort.length > 0 || search.ids !== undefined ? await collectedPage(walk, search, cursor) : await streamedPage(walk, search, cursor);
  const total = search.total === 'none' ? undefined : (page.total ?? (search.total ? await countMatches(walk, search.ids) : undefined));
  const { resources, patientIds } = await resourcesOf(page.rows, type);
  const bundle = searchsetBundle(linked, { resources, total, next: page.next, previous: page.previous, ignored: search.ignored });
  return { bundle, patientIds };
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
