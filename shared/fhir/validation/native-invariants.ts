/**
 * Invariants decided in TypeScript instead of through FHIRPath: the ones every resource meets at
 * many places (each Reference, Coding, Extension, contained resource), and the ones whose
 * expression costs more than the data it reads (ref-1 looks up `%rootResource.contained.id` once
 * per Reference: quadratic in a resource with many contained resources and references; qrs-2 and
 * bdl-7 call `isDistinct()`, which the engine computes by comparing every value with every other).
 *
 * Each one answers exactly what its expression answers, and `undefined` where the data takes a
 * shape it does not decide on its own (a primitive carried by an extension only, a value of the
 * wrong JSON type): the FHIRPath pass then evaluates the expression as usual. A unit test runs
 * both over every element of the standard's example corpus and over generated elements, and
 * requires the same verdict wherever the native one gives one.
 */
import { isObject } from '../../json';
import { Lookups, type FhirPathEnv } from '../fhirpath';

type Json = Record<string, unknown>;

/** The verdict of an invariant on one element: held, violated, or left to FHIRPath. */
export type NativeInvariant = (data: unknown, env: FhirPathEnv) => boolean | undefined;

/**
 * `name.exists()` on an element's JSON object: a value (a non-empty list) or a primitive's `_name`;
 * undefined for shapes no valid resource has (null, an empty list), which FHIRPath judges instead.
 */
function presence(o: Json, name: string): boolean | undefined {
  const v = o[name];
  const ext = o[`_${name}`];
  if (v === null || ext === null || (Array.isArray(v) && v.length === 0) || (Array.isArray(ext) && ext.length === 0)) return undefined;
  return v !== undefined || ext !== undefined;
}

/** `f` of the presences of `names` in `o`, or undefined when any of them is not plainly there or not. */
function decide(o: Json, names: readonly string[], f: (...present: boolean[]) => boolean): boolean | undefined {
  const present: boolean[] = [];
  for (const name of names) {
    const p = presence(o, name);
    if (p === undefined) return undefined;
    present.push(p);
  }
  return f(...present);
}

/** `value.exists()` for a choice element `value[x]`: any `value<Type>` (or `_value<Type>`) key. */
function choicePresence(o: Json, name: string): boolean | undefined {
  const prefix = name.length;
  let found = false;
  for (const key of Object.keys(o)) {
    const at = key.charCodeAt(0) === 95 /* _ */ ? 1 : 0;
    if (!key.startsWith(name, at) || !isUpper(key.charCodeAt(at + prefix))) continue;
    const p = presence(o, key.slice(at));
    if (p === undefined) return undefined;
    found ||= p;
  }
  return found;
}

/** Two verdicts or presences combined by `f`, unless either is left to FHIRPath. */
const both = <T>(a: T | undefined, b: T | undefined, f: (a: T, b: T) => boolean) => (a === undefined || b === undefined ? undefined : f(a, b));

const isUpper = (c: number) => c >= 65 && c <= 90;

/** A primitive's string value, `null` when absent, `undefined` when it is not plainly a string. */
function stringValue(o: Json, name: string): string | null | undefined {
  const v = o[name];
  if (typeof v === 'string') return v;
  if (v === undefined && o[`_${name}`] === undefined) return null;
  return undefined;
}

/** Applies `check` to an element that must be a JSON object; anything else is FHIRPath's to judge. */
const onObject =
  (check: (o: Json, env: FhirPathEnv) => boolean | undefined): NativeInvariant =>
  (data, env) =>
    isObject(data) ? check(data, env) : undefined;

/** The contained resources of a resource (the FHIRPath `contained` of it), when they are plain objects. */
function containedOf(o: Json): Json[] | undefined {
  const contained = o.contained;
  if (contained === undefined) return [];
  if (!Array.isArray(contained) || !contained.every(isObject)) return undefined;
  return contained;
}

/** `contained.<parent>.<name>.empty()`: no contained resource has a value there. */
function noContainedHas(o: Json, parent: string | undefined, name: string): boolean | undefined {
  const contained = containedOf(o);
  if (!contained) return undefined;
  let verdict: boolean | undefined = true;
  for (const c of contained) {
    const at = parent === undefined ? c : c[parent];
    if (at === undefined) continue;
    if (!isObject(at)) return undefined;
    const p = presence(at, name);
    if (p === undefined) return undefined;
    if (p) verdict = false;
  }
  return verdict;
}


/** ref-1: a local reference (`#id`) names a resource contained in the root resource, or `#` the container. */
const ref1 = onObject((o, env) => {
  const reference = stringValue(o, 'reference');
  if (reference === undefined) return undefined;
  if (reference === null || !reference.startsWith('#')) return true;
  if ((env.lookups ?? new Lookups()).contained(env.rootResource).has(reference.slice(1))) return true;
  return reference === '#' && env.rootResource !== env.resource;
});

/**
 * qrs-2: among the items of every item and answer below an item (at any depth), those with an
 * answer that has a value carry distinct linkIds. Every item of a response is a site of this
 * invariant, so each node's verdict is remembered for the pass: the whole response costs one walk.
 */
const qrs2: NativeInvariant = (data, env) => {
  if (!isObject(data)) return undefined;
  const lookups = env.lookups ?? new Lookups();
  return allBelow(data, (node) => lookups.remember('qrs-2', node, () => itemsHold(node, lookups)));
};

/** `check` on every item and answer directly below `node`: all true, one false, or undecided. */
function allBelow(node: Json, check: (child: Json) => boolean | undefined): boolean | undefined {
  let verdict: boolean | undefined = true;
  for (const list of [node.item, node.answer]) {
    if (list === undefined) continue;
    if (!Array.isArray(list) || !list.every(isObject)) return undefined;
    for (const child of list) {
      const held = check(child);
      if (held === false) return false;
      if (held === undefined) verdict = undefined;
    }
  }
  return verdict;
}

/** qrs-2 at one node and everything below it. */
function itemsHold(node: Json, lookups: Lookups): boolean | undefined {
  const linkIds = new Set<string>();
  let verdict: boolean | undefined = true;
  for (const item of Array.isArray(node.item) ? (node.item as unknown[]) : []) {
    if (!isObject(item) || item.answer === undefined) continue;
    if (!Array.isArray(item.answer) || !item.answer.every(isObject)) return undefined;
    const answered = item.answer.map((a) => choicePresence(a, 'value'));
    if (answered.includes(undefined)) return undefined;
    if (!answered.includes(true)) continue;
    const linkId = stringValue(item, 'linkId');
    if (linkId === undefined) verdict = undefined;
    else if (linkId !== null) {
      if (linkIds.has(linkId)) return false;
      linkIds.add(linkId);
    }
  }
  const below = allBelow(node, (child) => lookups.remember('qrs-2', child, () => itemsHold(child, lookups)));
  return below === false ? false : verdict === undefined || below === undefined ? undefined : true;
}

/** bdl-7: outside history Bundles, fullUrl (with the entry's versionId) is unique. */
const bdl7 = onObject((o) => {
  if (o.type === 'history') return true;
  if (typeof o.type !== 'string' && o.type !== undefined) return undefined;
  const entries = o.entry;
  if (entries === undefined) return true;
  if (!Array.isArray(entries) || !entries.every(isObject)) return undefined;
  const seen = new Set<string>();
  for (const entry of entries) {
    const fullUrl = stringValue(entry, 'fullUrl');
    if (fullUrl === undefined) return undefined;
    if (fullUrl === null) continue;
    const meta = isObject(entry.resource) ? entry.resource.meta : undefined;
    const versionId = isObject(meta) ? stringValue(meta, 'versionId') : null;
    if (versionId === undefined) return undefined;
    // The expression concatenates (`&`): two entries whose texts join to the same string collide there too.
    const key = fullUrl + (versionId ?? '');
    if (seen.has(key)) return false;
    seen.add(key);
  }
  return true;
});

const DATE = /^\d{4}(-\d\d(-\d\d)?)?$/;
const DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/;

/**
 * per-1: a period's start is not after its end, comparing the start's lowest instant with the
 * end's highest. Decided here when both are dates of one precision (their texts then order as
 * their boundaries do) or date-times of one precision and one offset; otherwise by FHIRPath.
 */
const per1 = onObject((o) => {
  const start = stringValue(o, 'start');
  const end = stringValue(o, 'end');
  if (start === null || end === null) return o._start === undefined && o._end === undefined ? true : undefined;
  if (start === undefined || end === undefined || start.length !== end.length) return undefined;
  if (DATE.test(start) && DATE.test(end)) return start <= end;
  if (DATE_TIME.test(start) && DATE_TIME.test(end) && offsetOf(start) === offsetOf(end)) return start <= end;
  return undefined;
});

const offsetOf = (dateTime: string) => dateTime.slice(dateTime.search(/(Z|[+-]\d\d:\d\d)$/));

/**
 * `type = 'x' implies ...` / `type in (...) implies ...` of a Bundle: held when its type is none of
 * those (the common case: most invariants are about one kind of Bundle); else `then`, or FHIRPath.
 */
const whenType = (types: readonly string[], then?: (o: Json) => boolean | undefined): NativeInvariant =>
  onObject((o) => (typeof o.type !== 'string' ? undefined : !types.includes(o.type) ? true : then?.(o)));

/** The entries of a Bundle when they are plain objects (none is an empty list). */
const entriesOf = (o: Json): Json[] | undefined => (o.entry === undefined ? [] : Array.isArray(o.entry) && o.entry.every(isObject) ? o.entry : undefined);

/** `entry.all(f)`, each entry's verdict possibly left to FHIRPath. */
function allEntries(o: Json, f: (entry: Json) => boolean | undefined): boolean | undefined {
  const entries = entriesOf(o);
  if (!entries) return undefined;
  let verdict: boolean | undefined = true;
  for (const entry of entries) {
    const held = f(entry);
    if (held === false) return false;
    if (held === undefined) verdict = undefined;
  }
  return verdict;
}

/** bdl-1: only a searchset or a history has a total. */
const bdl1 = onObject((o) => {
  if (o.type === 'searchset' || o.type === 'history') return true;
  if (o.type !== undefined && typeof o.type !== 'string') return undefined;
  const total = presence(o, 'total');
  return total === undefined ? undefined : !total;
});

/** bdl-3a: every entry of a document, message, searchset or collection has a resource and no request or response. */
const bdl3a = whenType(['document', 'message', 'searchset', 'collection'], (o) =>
  allEntries(o, (e) => decide(e, ['resource', 'request', 'response'], (resource, request, response) => resource && !request && !response)),
);

/** bdl-15: outside transactions and batches, every entry has a fullUrl or is a POST. */
const bdl15 = onObject((o) => {
  if (typeof o.type !== 'string') return undefined;
  if (['transaction', 'transaction-response', 'batch', 'batch-response'].includes(o.type)) return true;
  return allEntries(o, (e) => (presence(e, 'fullUrl') === true ? true : isObject(e.request) && e.request.method === 'POST' ? true : presence(e, 'fullUrl') === false && e.request === undefined ? false : undefined));
});

/** By constraint key; each is the expression of the standard's R5 definitions quoted beside it. */
export const NATIVE_INVARIANTS: ReadonlyMap<string, NativeInvariant> = new Map<string, NativeInvariant>([
  ['ref-1', ref1],
  // reference.exists() or identifier.exists() or display.exists() or extension.exists()
  ['ref-2', onObject((o) => decide(o, ['reference', 'identifier', 'display', 'extension'], (r, i, d, e) => r || i || d || e))],
  // code.exists().not() implies display.exists().not()
  ['cod-1', onObject((o) => decide(o, ['code', 'display'], (code, display) => code || !display))],
  // extension.exists() != value.exists()
  ['ext-1', onObject((o) => both(presence(o, 'extension'), choicePresence(o, 'value'), (extension, value) => extension !== value))],
  // value.exists()
  ['ident-1', onObject((o) => presence(o, 'value'))],
  // code.empty() or system.exists()
  ['qty-3', onObject((o) => decide(o, ['code', 'system'], (code, system) => !code || system))],
  // data.empty() or contentType.exists()
  ['att-1', onObject((o) => decide(o, ['data', 'contentType'], (data, contentType) => !data || contentType))],
  // contained.contained.empty()
  ['dom-2', onObject((o) => noContainedHas(o, undefined, 'contained'))],
  // contained.meta.versionId.empty() and contained.meta.lastUpdated.empty()
  ['dom-4', onObject((o) => both(noContainedHas(o, 'meta', 'versionId'), noContainedHas(o, 'meta', 'lastUpdated'), (a, b) => a && b))],
  // contained.meta.security.empty()
  ['dom-5', onObject((o) => noContainedHas(o, 'meta', 'security'))],
  // text.`div`.exists()
  ['dom-6', onObject((o) => (o.text === undefined ? false : isObject(o.text) ? presence(o.text, 'div') : undefined))],
  // dataAbsentReason.empty() or value.empty()
  ['obs-6', onObject((o) => both(presence(o, 'dataAbsentReason'), choicePresence(o, 'value'), (absent, value) => !absent || !value))],
  // resource.exists() or request.exists() or response.exists()
  ['bdl-5', onObject((o) => decide(o, ['resource', 'request', 'response'], (resource, request, response) => resource || request || response))],
  // fullUrl.exists() implies fullUrl.contains('/_history/').not()
  ['bdl-8', onObject((o) => {
    const fullUrl = stringValue(o, 'fullUrl');
    return fullUrl === undefined ? undefined : fullUrl === null || !fullUrl.includes('/_history/');
  })],
  // composition.exists() implies (...): decided here only when there is no composition
  ['dgr-1', onObject((o) => (presence(o, 'composition') === false ? true : undefined))],
  // value.empty() or component.code.where(...).empty(): decided here when either side is plainly empty
  ['obs-7', onObject((o) => (choicePresence(o, 'value') === false || presence(o, 'component') === false ? true : undefined))],
  // bodySite.exists() implies bodyStructure.empty()
  ['obs-8', onObject((o) => decide(o, ['bodySite', 'bodyStructure'], (bodySite, bodyStructure) => !bodySite || !bodyStructure))],
  // (answer.exists() and item.exists()).not()
  ['qrs-1', onObject((o) => decide(o, ['answer', 'item'], (answer, item) => !(answer && item)))],
  // low.exists() or high.exists() or text.exists()
  ['obs-3', onObject((o) => decide(o, ['low', 'high', 'text'], (low, high, text) => low || high || text))],
  ['per-1', per1],
  ['bdl-7', bdl7],
  // total.empty() or (type = 'searchset') or (type = 'history')
  ['bdl-1', bdl1],
  // (type = 'searchset') or entry.search.empty()
  ['bdl-2', onObject((o) => (typeof o.type !== 'string' ? undefined : o.type === 'searchset' ? true : allEntries(o, (e) => (e.search === undefined ? true : isObject(e.search) ? false : undefined))))],
  ['bdl-3a', bdl3a],
  // type = 'history' implies entry.all(...); type in ('transaction' | 'batch') implies ...; type in ('transaction-response' | 'batch-response') implies ...
  ['bdl-3b', whenType(['history'])],
  ['bdl-3c', whenType(['transaction', 'batch'])],
  ['bdl-3d', whenType(['transaction-response', 'batch-response'])],
  // type = 'document' implies ... (bdl-9, 10, 11, 17); type = 'message' implies ...; and so on
  ['bdl-9', whenType(['document'])],
  ['bdl-10', whenType(['document'])],
  ['bdl-11', whenType(['document'])],
  ['bdl-12', whenType(['message'])],
  ['bdl-13', whenType(['subscription-notification'])],
  ['bdl-14', whenType(['history'])],
  ['bdl-15', bdl15],
  // issues.exists() implies (...)
  ['bdl-16', onObject((o) => (presence(o, 'issues') === false ? true : undefined))],
  ['bdl-17', whenType(['document'])],
  ['bdl-18', whenType(['searchset'])],
  // duration.empty() or durationUnit.exists()
  ['tim-1', onObject((o) => decide(o, ['duration', 'durationUnit'], (duration, unit) => !duration || unit))],
  // value.empty() or system.exists()
  ['cpt-2', onObject((o) => decide(o, ['value', 'system'], (value, system) => !value || system))],
  ['qrs-2', qrs2],
]);
