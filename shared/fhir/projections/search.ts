/**
 * Search and read of the read-only projections. A search is:
 *
 * 1. the scoping parameters (docs/api.md#read-only-fhir-projections: `patient`, `patient.organization`,
 *    `patient._has:Group:member:_id` and the unprefixed `_has:Group:member:_id`,
 *    `patient.identifier`, and on Patient `identifier` and `organization`), each resolved by THE
 *    scoping module to the ids the caller may see (repetition = AND, comma = OR; none = everything
 *    the caller may see);
 * 2. `_id`, narrowing those ids before anything is loaded;
 * 3. the type's own parameters (names, `birthdate`, `_lastUpdated`, ...) parsed and matched by the
 *    standard's search primitives against index values built from each entity;
 * 4. the order: `_sort` when given, else ascending id (creation order), and keyset paging on it.
 *
 * Without entity criteria or `_sort`, only the page's rows are loaded (the id list comes from key
 * queries), so paging through a large organization costs one BatchGetItem per page. Parameters the
 * type does not support are ignored, left out of the `self` link and named in the outcome entry
 * (`Prefer: handling=strict` makes them a 400). Paging, cursors and the Bundle are the search
 * kernel's (shared/fhir/searchset). Another patient's rows never come back: the id set is the
 * caller's scope.
 */
import type { Caller } from '../../auth/caller';
import { parseIdentifierToken, type ScopeFilter } from '../../auth/scope';
import { parseId } from '../../directory/ids';
import type { Id } from '../../directory/model';
import { badRequest, notFound } from '../../http/errors';
import type { AuthedRequest } from '../../http/request';
import { fhirJson, type HttpResponse } from '../../http/response';
import { METRIC } from '../../telemetry/names';
import { nativeSourceUri } from '../constants';
import type { Criterion, SortSpec, UnknownParam } from '../search/criteria';
import type { SearchIndex } from '../search/index-values';
import { matchesAll } from '../search/match';
import { parseSearch, RESULT_PARAMETERS } from '../search/parse';
import { parseSort, sortKey } from '../search/sort';
import { splitUnescaped, unescapeValue } from '../search/values';
import { fhirSiteOf } from '../router';
import { CURSOR_PARAM, cursorOf, cutPage, enforceHandling, linkedSearch, readPageRequest, rowsFrom, searchsetBundle, isSortValues, type PositionCodec, type SortValue } from '../searchset';
import { versionHeadersOf } from '../version-headers';
import type { FhirResource } from './resources';

export interface Projection<T extends { id: Id }> {
  type: string;
  /** Codes of the type's own search parameters this projection answers (beyond the scoping ones). */
  params: readonly string[];
  /** Scoping parameters of this type beyond the common ones (e.g. Patient's `identifier`). */
  extraScoping?: Readonly<Record<string, keyof ScopeFilter>>;
  /** Ids the caller may see under one scoping filter, ascending (403 for a practitioner naming what they cannot see). */
  scope: (caller: Caller, filter: ScopeFilter) => Promise<Id[]>;
  load: (ids: readonly Id[]) => Promise<T[]>;
  /** One entity if the caller may see it; a 404 otherwise, the same as for a missing id. */
  readOne: (caller: Caller, id: Id) => Promise<T>;
  resource: (entity: T) => FhirResource;
  index: (entity: T) => SearchIndex;
  /** Whose patient data an entity is, for the audit trail (only Patient's resources are). */
  patientOf?: (entity: T) => Id;
}

/** The scoping parameters, common to the five types (docs/api.md#read-only-fhir-projections). */
export const SCOPING_PARAMS: Readonly<Record<string, keyof ScopeFilter>> = {
  patient: 'patient',
  'patient.organization': 'organization',
  'patient._has:Group:member:_id': 'study',
  '_has:Group:member:_id': 'study',
  'patient.identifier': 'identifier',
};

/** Result parameters this search understands; the others (`_include`, `_elements`, ...) are ignored. */
const PAGING_PARAMS = new Set(['_count', '_summary', '_sort']);

const values = (raw: string) => splitUnescaped(raw, ',').map((v) => unescapeValue(v).trim()).filter((v) => v.length > 0);

interface ParsedQuery {
  scoping: ScopeFilter[];
  criteria: Criterion[];
  sort: SortSpec[];
  cursor?: string;
  /** `_source` names another store: this store has nothing for it. */
  otherSource: boolean;
  /** The search as applied (what is ignored left out), and the cursor. */
  self: URLSearchParams;
  ignored: UnknownParam[];
}

function parseQuery<T extends { id: Id }>(projection: Projection<T>, params: URLSearchParams): ParsedQuery {
  const scopingNames = { ...SCOPING_PARAMS, ...projection.extraScoping };
  const out: ParsedQuery = { scoping: [], criteria: [], sort: [], otherSource: false, self: new URLSearchParams(), ignored: [] };
  const rest: Array<[string, string]> = [];
  for (const [rawName, value] of params) {
    const name = rawName.trim();
    if (name === CURSOR_PARAM) {
      out.cursor = value;
      out.self.append(name, value);
    } else if (PAGING_PARAMS.has(name)) {
      if (name === '_sort') out.sort.push(...parseSort(projection.type, value));
      out.self.append(name, value);
    } else if (name === '_source' || name.startsWith('_source:')) {
      out.otherSource ||= !(name === '_source' && value === nativeSourceUri());
      out.self.append(name, value);
    } else if (Object.hasOwn(scopingNames, name)) {
      const field = scopingNames[name]!;
      const list = values(value);
      if (list.length === 0) continue;
      out.scoping.push({ [field]: field === 'identifier' ? list.map(parseIdentifierToken) : list });
      out.self.append(name, value);
    } else if (RESULT_PARAMETERS.has(name)) {
      out.ignored.push({ name, reason: `result parameter '${name}' is not supported on ${projection.type}` });
    } else {
      rest.push([name, value]);
    }
  }
  const parsed = parseSearch(projection.type, rest);
  const supported = new Set(projection.params);
  out.criteria = parsed.criteria.filter((c) => supported.has(c.param.code));
  const used = new Set(out.criteria.map((c) => c.name));
  for (const [name, value] of rest) if (used.has(name.trim())) out.self.append(name.trim(), value);
  for (const [rawName] of rest) {
    const name = rawName.trim();
    if (!used.has(name)) out.ignored.push({ name, reason: `'${name}' is not supported on ${projection.type} here` });
  }
  for (const spec of out.sort) {
    if (spec.param.code !== '_id' && !supported.has(spec.param.code)) {
      throw badRequest(`Cannot sort ${projection.type} by '${spec.param.code}' here; sortable: ${['_id', ...projection.params].join(', ')}.`).at('_sort');
    }
  }
  return out;
}

/** Rows in result order: sort values (the id last), compared with absent values last both ways. */
interface Row {
  id: Id;
  keys: SortValue[];
}

function compareKeys(a: readonly SortValue[], b: readonly SortValue[], descending: readonly boolean[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? null;
    const y = b[i] ?? null;
    if (x === y) continue;
    if (x === null) return 1;
    if (y === null) return -1;
    const order = x < y ? -1 : 1;
    return descending[i] ? -order : order;
  }
  return 0;
}

/** Cursors carry a row's sort values (the id last). */
function projectionPositions(keyCount: number): PositionCodec<SortValue[]> {
  return {
    encode: (keys) => keys,
    decode: (value) => (isSortValues(value, keyCount) ? value : undefined),
  };
}

async function scopedIds<T extends { id: Id }>(projection: Projection<T>, caller: Caller, query: ParsedQuery): Promise<Id[]> {
  const filters = query.scoping.length > 0 ? query.scoping : [{}];
  const sets = await Promise.all(filters.map((f) => projection.scope(caller, f)));
  let ids = sets.reduce((acc, set) => {
    const keep = new Set(set);
    return acc.filter((id) => keep.has(id));
  });
  // `_id` (exact; anything that is not an id of ours matches nothing) narrows before loading.
  for (const c of query.criteria) {
    if (c.param.code !== '_id' || c.kind !== 'token' || c.modifier) continue;
    const wanted = new Set(c.values.map((v) => v.code));
    ids = ids.filter((id) => wanted.has(String(id)));
  }
  return ids;
}

export async function searchProjection<T extends { id: Id }>(projection: Projection<T>, req: AuthedRequest, params: URLSearchParams): Promise<HttpResponse> {
  const { caller } = req;
  const query = parseQuery(projection, params);
  const paging = readPageRequest(params);
  enforceHandling(req.headers['prefer'], [...query.ignored, ...paging.ignored]);
  const rest = query.criteria.filter((c) => !(c.param.code === '_id' && c.kind === 'token' && !c.modifier));
  const linked = linkedSearch(fhirSiteOf(req), projection.type, query.self, projectionPositions(query.sort.length + 1));
  const cursor = cursorOf(linked, query.cursor);
  const descending = [...query.sort.map((s) => s.descending), false];

  let rows: Row[];
  let loaded = new Map<Id, T>();
  if (query.otherSource) {
    rows = [];
  } else if (rest.length === 0 && query.sort.length === 0) {
    rows = (await scopedIds(projection, caller, query)).map((id) => ({ id, keys: [id] }));
  } else {
    const now = Date.now();
    const entities = await projection.load(await scopedIds(projection, caller, query));
    const matching = entities
      .map((entity) => ({ entity, index: projection.index(entity) }))
      .filter((r) => matchesAll(r.index, rest, now));
    loaded = new Map(matching.map((r) => [r.entity.id, r.entity]));
    rows = matching
      .map((r) => ({ id: r.entity.id, keys: [...query.sort.map((s) => (s.param.code === '_id' ? r.entity.id : (sortKey(r.index, s) ?? null))), r.entity.id] }))
      .sort((a, b) => compareKeys(a.keys, b.keys, descending));
  }
  const following = rowsFrom(rows, cursor, (r: Row, at: SortValue[]) => compareKeys(r.keys, at, descending));
  const { rows: page, next, previous } = await cutPage(following, paging.countOnly ? 0 : paging.count, cursor, (r) => r.keys);
  const missing = page.filter((r) => !loaded.has(r.id)).map((r) => r.id);
  if (missing.length > 0) for (const entity of await projection.load(missing)) loaded.set(entity.id, entity);
  const served = page.flatMap((r) => loaded.get(r.id) ?? []);
  if (projection.patientOf) req.audit.touched(served.map(projection.patientOf));
  req.meter.count(METRIC.searchPages);
  req.meter.count(METRIC.searchRows, served.length);
  const resources = served.map((entity) => projection.resource(entity));
  return fhirJson(200, searchsetBundle(linked, { resources, total: rows.length, next, previous, ignored: [...query.ignored, ...paging.ignored] }));
}

export async function readProjection<T extends { id: Id }>(projection: Projection<T>, req: AuthedRequest, rawId: string): Promise<HttpResponse> {
  const { caller } = req;
  const id = parseId(rawId);
  if (id === undefined) throw notFound(`${projection.type}/${rawId} not found.`);
  const entity = await projection.readOne(caller, id);
  if (projection.patientOf) req.audit.touched([projection.patientOf(entity)]);
  const resource = projection.resource(entity);
  return fhirJson(200, resource, versionHeadersOf(resource));
}
