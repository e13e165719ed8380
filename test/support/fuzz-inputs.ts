/**
 * Hostile inputs for the fuzz suites, as fast-check arbitraries: JSON of any shape whose keys
 * include prototype names and the resource's own element names, text that is huge, nested far past
 * the parser's limit or not JSON at all, and mutations of valid resources (an element deleted,
 * replaced by anything, wrapped in a list, a hostile key added beside it, or the Base64 payload of a
 * reading decoded, mutated and encoded again). Keys are added as own properties, so `__proto__`
 * reaches the request text as a key like any other.
 */
import fc from 'fast-check';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Prototype names, element names the service reads, and text that means something elsewhere. */
export const HOSTILE_KEYS = [
  '__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty',
  'resourceType', 'id', 'meta', 'entry', 'resource', 'request', 'url', 'method', 'subject', 'code', 'coding', 'system',
  'identifier', 'valueAttachment', 'data', 'header', 'uuid', 'body', 'effective_time_frame', 'extension', 'contained',
  '$gt', '$ne', '', ' ', '.', 'a.b', '\u0000', '../', '%00', 'ü', '😀',
] as const;

export const hostileKey: fc.Arbitrary<string> = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...HOSTILE_KEYS) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) });

/** Strings far over any field's size, built once (fast-check only picks among them). */
const HUGE = ['x'.repeat(70_000), '😀'.repeat(30_000), 'a\u0000'.repeat(5_000), '<script>'.repeat(10_000), '9'.repeat(400)];
/** Strings within a field's size that grow past a key's once encoded (non-ASCII, and a URI's reserved characters). */
const LONG = ['x'.repeat(3000), '😀'.repeat(128), `urn:${'a/'.repeat(126)}`, 'é'.repeat(256), '%'.repeat(700)];

export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "' OR '1'='1", '{"$gt": ""}', '${jndi:ldap://x/a}', '../../etc/passwd', '\u202e\u2066', '%E0%A4%A', 'null', 'NaN', '-0',
      '2025-02-30', '2025-13-01T25:61:61Z', '9999-12-31T23:59:59.999+14:00', '0000-01-01', 'Patient/0', 'Patient/-1', 'urn:uuid:', 'omh:heart-rate:2.0',
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(...HUGE) },
  { weight: 1, arbitrary: fc.constantFrom(...LONG) },
);

const scalar: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: hostileText },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.constantFrom(0, -1, 2 ** 53, -(2 ** 53), 1e308, -1e-308, 0.1, Number.MAX_SAFE_INTEGER + 2) },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
);

/** Any JSON value, keys from the hostile list. */
export const jsonValue: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(hostileKey, tie('value'), { maxKeys: 5 }),
  ),
})).value;

/** Any JSON object (what most endpoints expect at the top), keys from the hostile list. */
export const jsonObject: fc.Arbitrary<Record<string, Json>> = fc.dictionary(hostileKey, jsonValue, { maxKeys: 8 });

/** `levels` nested objects or lists around one value: past the parser's nesting limit when deep. */
export const nestedText: fc.Arbitrary<string> = fc
  .record({ levels: fc.integer({ min: 50, max: 20_000 }), list: fc.boolean() })
  .map(({ levels, list }) => (list ? `${'['.repeat(levels)}1${']'.repeat(levels)}` : `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`));

export const malformedText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', '{', '{"a":', '[1,2', 'nul', '{"a":1}}', '\uFEFF{}', '{"a":1,"a":2}', "{'a':1}", '{"a":01}', '"\\ud800"', '<xml/>', 'a=1&b=2'),
  fc.string({ maxLength: 30 }),
);

/** A request body as text: JSON of any shape, nested text or not JSON at all. */
export const bodyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: jsonValue.map((v) => JSON.stringify(v)) },
  { weight: 5, arbitrary: jsonObject.map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: nestedText },
  { weight: 2, arbitrary: malformedText },
);

// --- mutations of valid resources -----------------------------------------------------------------

type Container = Json[] | { [key: string]: Json };
type Path = Array<string | number>;

interface Mutation {
  kind: 'delete' | 'replace' | 'add-key' | 'wrap' | 'empty' | 'stringify' | 'payload';
  /** Chooses the element (modulo the number of elements). */
  pick: number;
  value: Json;
  key: string;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom('delete', 'replace', 'replace', 'add-key', 'wrap', 'empty', 'stringify', 'payload'),
  pick: fc.nat(),
  value: jsonValue,
  key: hostileKey,
});

const isContainer = (v: unknown): v is Container => typeof v === 'object' && v !== null;

/** Every path to an element of the value (the root excluded). */
function pathsOf(value: Json, at: Path = []): Path[] {
  if (!isContainer(value)) return [];
  const entries: Array<[string | number, Json]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  return entries.flatMap(([k, v]) => [[...at, k], ...pathsOf(v, [...at, k])]);
}

/** Sets an own property, even one named `__proto__`. */
function setOwn(target: Container, key: string | number, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function containerAt(root: Json, path: Path): Container | undefined {
  let node: Json | undefined = root;
  for (const k of path) node = isContainer(node) ? (node as Record<string, Json>)[k as string] : undefined;
  return isContainer(node) ? node : undefined;
}

/** A reading's payload: Base64 of JSON, which the service decodes and checks itself. */
function mutatePayload(root: Json, m: Mutation): void {
  const attachment = containerAt(root, ['valueAttachment']) as Record<string, Json> | undefined;
  if (!attachment || typeof attachment.data !== 'string') return;
  let payload: Json;
  try {
    payload = JSON.parse(Buffer.from(attachment.data, 'base64').toString('utf8')) as Json;
  } catch {
    return;
  }
  const mutated = applyMutation(payload, { ...m, kind: m.pick % 2 === 0 ? 'replace' : 'delete' });
  attachment.data = Buffer.from(JSON.stringify(mutated), 'utf8').toString('base64');
}

function applyMutation(root: Json, m: Mutation): Json {
  if (m.kind === 'payload') {
    mutatePayload(root, m);
    return root;
  }
  const paths = pathsOf(root);
  if (paths.length === 0) return m.kind === 'replace' ? m.value : root;
  const path = paths[m.pick % paths.length]!;
  const parent = containerAt(root, path.slice(0, -1))!;
  const key = path[path.length - 1]!;
  const current = (parent as Record<string, Json>)[key as string]!;
  switch (m.kind) {
    case 'delete':
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key as string];
      break;
    case 'replace':
      setOwn(parent, key, m.value);
      break;
    case 'add-key':
      if (isContainer(current) && !Array.isArray(current)) setOwn(current, m.key, m.value);
      else if (!Array.isArray(parent)) setOwn(parent, m.key, m.value);
      break;
    case 'wrap':
      setOwn(parent, key, [current]);
      break;
    case 'empty':
      setOwn(parent, key, Array.isArray(current) ? [] : isContainer(current) ? {} : '');
      break;
    case 'stringify':
      setOwn(parent, key, JSON.stringify(current));
      break;
  }
  return root;
}

/** The valid value with one to four mutations applied (a fresh copy each time). */
export function mutationsOf<T>(valid: () => T): fc.Arbitrary<Json> {
  return fc.array(mutation, { minLength: 1, maxLength: 4 }).map((ms) => ms.reduce<Json>((v, m) => applyMutation(v, m), structuredClone(valid()) as Json));
}
