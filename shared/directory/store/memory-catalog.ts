/** The in-memory twin of the catalog: codes, data sources and the codes each supports. */
import type { Code, CodeRef, DataSource, Id } from '../model';
import { byId, copy, counter, recordTable } from './memory-records';
import { codeNotSupported, codingTaken, dataSourceNotFound, type DirectoryStore } from './port';

export function memoryCatalog(): Pick<DirectoryStore, 'codes' | 'dataSources'> {
  const codes = recordTable<Id, Code>((id) => new Error(`no code ${id}`));
  const codingOf = (system: string, code: string) => JSON.stringify([system, code]);
  const codings = new Map<string, Id>();
  const sources = recordTable<Id, DataSource>(dataSourceNotFound);
  /** Supported codes per data source. */
  const supported = new Map<Id, Map<Id, CodeRef>>();

  return {
    codes: {
      newId: counter(),
      insert: async (code) => {
        const coding = codingOf(code.system, code.code);
        if (codings.has(coding)) throw codingTaken(code);
        codings.set(coding, code.id);
        codes.rows.set(code.id, copy(code));
      },
      get: codes.get,
      getMany: codes.getMany,
      findByCoding: async (system, code) => {
        const id = codings.get(codingOf(system, code));
        return id === undefined ? undefined : codes.get(id);
      },
      list: codes.list,
    },
    dataSources: {
      newId: counter(),
      insert: async (source) => void sources.rows.set(source.id, copy(source)),
      get: sources.get,
      getMany: sources.getMany,
      list: sources.list,
      update: sources.update,
      remove: async (id) => {
        sources.existing(id);
        sources.rows.delete(id);
        supported.delete(id);
      },
      addCode: async (id, code) => {
        sources.existing(id);
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
