/**
 * The catalog port in memory: a twin of the DynamoDB adapter for tests that need no tables. The
 * contract suite (test/contract/catalog-store.ts) holds it to the same behaviour.
 */
import type { Code, CodeRef, DataSource, Id } from '../model';
import { codeNotSupported, codingTaken, dataSourceNotFound, type CatalogStore } from './port';

/** What a store hands out is a copy, as a read from a table is, with absent fields left out. */
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const byId = (a: { id: Id }, b: { id: Id }) => a.id - b.id;

function counter(): () => Promise<Id> {
  let last = 0;
  return async () => ++last;
}

export function memoryCatalogStore(): CatalogStore {
  const codes = new Map<Id, Code>();
  const sources = new Map<Id, DataSource>();
  /** Supported codes per data source. */
  const supported = new Map<Id, Map<Id, CodeRef>>();
  const codingOf = (system: string, code: string) => JSON.stringify([system, code]);
  const codings = new Map<string, Id>();

  const getMany = <T>(table: Map<Id, T>) => async (ids: readonly Id[]) => ids.flatMap((id) => (table.has(id) ? [copy(table.get(id)!)] : []));
  const existing = (id: Id) => {
    const source = sources.get(id);
    if (!source) throw dataSourceNotFound(id);
    return source;
  };

  return {
    codes: {
      newId: counter(),
      insert: async (code) => {
        const coding = codingOf(code.system, code.code);
        if (codings.has(coding)) throw codingTaken(code);
        codings.set(coding, code.id);
        codes.set(code.id, copy(code));
      },
      get: async (id) => (codes.has(id) ? copy(codes.get(id)!) : undefined),
      getMany: getMany(codes),
      findByCoding: async (system, code) => {
        const id = codings.get(codingOf(system, code));
        return id === undefined ? undefined : copy(codes.get(id));
      },
      list: async () => [...codes.values()].sort(byId).map(copy),
    },
    dataSources: {
      newId: counter(),
      insert: async (source) => void sources.set(source.id, copy(source)),
      get: async (id) => (sources.has(id) ? copy(sources.get(id)!) : undefined),
      getMany: getMany(sources),
      list: async () => [...sources.values()].sort(byId).map(copy),
      update: async (id, change) => {
        const next = copy(change(copy(existing(id))));
        sources.set(id, next);
        return copy(next);
      },
      remove: async (id) => {
        existing(id);
        sources.delete(id);
        supported.delete(id);
      },
      addCode: async (id, code) => {
        existing(id);
        const codesOf = supported.get(id) ?? new Map<Id, CodeRef>();
        codesOf.set(code.id, { id: code.id, system: code.system, code: code.code });
        supported.set(id, codesOf);
      },
      removeCode: async (id, codeId) => {
        if (!supported.get(id)?.delete(codeId)) throw codeNotSupported(id, codeId);
      },
      codes: async (id) => [...(supported.get(id)?.values() ?? [])].sort(byId).map(copy),
    },
  };
}
