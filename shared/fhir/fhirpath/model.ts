/**
 * The R5 model the `fhirpath` engine needs (which paths exist, their types, choice types,
 * repetition), derived from the compiled definitions instead of the engine's own 700 KB R5 tables.
 * The path tables fill per type on first lookup: the engine only ever reads them by key
 * (`path2Type['Observation.code']`), so a Proxy can load `Observation` when that key is asked for.
 * `test/unit/fhir/fhirpath/model.test.ts` proves the tables equal the engine's published R5 model.
 */
import type { Model } from 'fhirpath';
import { isAbstractResourceType, isComplexType, isKnownResourceType, manifest, typeDefinition } from '../definitions';
import type { ElementDef, TypeRef } from '../definitions';

type TypeEntry = string | { code: string; refType: string[] };

interface PathTables {
  path2Type: Record<string, string>;
  path2TypeWithoutElements: Record<string, string>;
  path2RefType: Record<string, string[]>;
  choiceTypePaths: Record<string, string[]>;
  path2Repeating: Record<string, true>;
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function typeEntry(t: TypeRef): TypeEntry {
  if (t.systemType) return t.systemType;
  if (t.code === 'Reference' || t.code === 'canonical') return { code: t.code, refType: t.targets ?? [] };
  return t.code;
}

function setType(tables: PathTables, path: string, entry: TypeEntry): void {
  const code = typeof entry === 'string' ? entry : entry.code;
  if (typeof entry !== 'string') tables.path2RefType[path] = entry.refType;
  tables.path2Type[path] = code;
  if (typeof entry !== 'string' || (code !== 'Element' && code !== 'BackboneElement')) {
    tables.path2TypeWithoutElements[path] = code;
  }
}

function addElements(tables: PathTables, parent: string, elements: readonly ElementDef[]): void {
  for (const el of elements) {
    const path = `${parent}.${el.name}`;
    // Like the engine's own model: a contentReference path's repetition is read at its target.
    if (el.contentRef) continue;
    if (el.max !== 1) tables.path2Repeating[path] = true;
    const types = el.types ?? [];
    if (el.choice) {
      tables.choiceTypePaths[path] = types.map((t) => capitalise(t.code));
      for (const t of types) setType(tables, path + capitalise(t.code), typeEntry(t));
    } else if (types[0]) {
      setType(tables, path, typeEntry(types[0]));
    }
    if (el.children) addElements(tables, path, el.children);
  }
}

function addPrimitive(tables: PathTables, name: string, systemType: string): void {
  setType(tables, `${name}.id`, 'System.String');
  setType(tables, `${name}.extension`, 'Extension');
  // xhtml is the one primitive that allows no extensions (max 0).
  if (name !== 'xhtml') tables.path2Repeating[`${name}.extension`] = true;
  setType(tables, `${name}.value`, systemType);
}

/** Tables whose keys appear as the root type of a path is first asked for. */
function lazyTables(): PathTables {
  const tables: PathTables = {
    path2Type: {},
    path2TypeWithoutElements: {},
    path2RefType: {},
    choiceTypePaths: {},
    path2Repeating: {},
  };
  const loaded = new Set<string>();
  const ensure = (key: string | symbol) => {
    if (typeof key !== 'string') return;
    const dot = key.indexOf('.');
    const root = dot < 0 ? key : key.slice(0, dot);
    if (loaded.has(root)) return;
    loaded.add(root);
    const primitive = Object.hasOwn(manifest.primitives, root) ? manifest.primitives[root] : undefined;
    if (primitive) addPrimitive(tables, root, primitive.systemType);
    else if (isKnownResourceType(root) || isAbstractResourceType(root) || isComplexType(root)) {
      addElements(tables, root, typeDefinition(root)!.elements);
    }
  };
  const handler: ProxyHandler<Record<string, unknown>> = {
    get: (target, key) => (ensure(key), Reflect.get(target, key)),
    has: (target, key) => (ensure(key), Reflect.has(target, key)),
  };
  return {
    path2Type: new Proxy(tables.path2Type, handler) as Record<string, string>,
    path2TypeWithoutElements: new Proxy(tables.path2TypeWithoutElements, handler) as Record<string, string>,
    path2RefType: new Proxy(tables.path2RefType, handler) as Record<string, string[]>,
    choiceTypePaths: new Proxy(tables.choiceTypePaths, handler) as Record<string, string[]>,
    path2Repeating: new Proxy(tables.path2Repeating, handler) as Record<string, true>,
  };
}

let model: Model | undefined;

/** The engine's R5 model, built once per process; the path tables fill type by type. */
export function r5Model(): Model {
  if (model) return model;
  const availableTypes = new Set<string>([...Object.keys(manifest.type2Parent), ...Object.values(manifest.type2Parent)]);
  model = {
    version: 'r5',
    score: {
      propertyURI: 'http://hl7.org/fhir/concept-properties#itemWeight',
      extensionURI: ['http://hl7.org/fhir/StructureDefinition/itemWeight'],
    },
    type2Parent: manifest.type2Parent,
    pathsDefinedElsewhere: manifest.pathsDefinedElsewhere,
    availableTypes,
    // Only read when resolve() fetches canonicals from a server, which this service never lets it do.
    resourcesWithUrlParam: {},
    ...lazyTables(),
  } as unknown as Model;
  return model;
}
