/** The in-memory twin of the catalog: codes, data sources and the codes each supports. */
import { byId, copy, counter, holding, innerMap, nestedEntries, readThrough, recordTable } from '../../store/memory';
import type { Code, CodeRef, DataSource, Id } from '../model';
import { codeNotSupported, codingTaken, dataSourceNotFound, type DirectoryStore } from './port';

export function memoryCatalog(): Pick<DirectoryStore, 'codes' | 'dataSources'> {
  const codes = recordTable<Id, Code>((id) => new Error(`no code ${id}`));
  const codingOf = (system: string, code: string) => JSON.stringify([system, code]);
  const codings = new Map<string, Id>();
  const sources = recordTable<Id, DataSource>(dataSourceNotFound);
  /** Supported codes per data source. */
  const supported = new Map<Id, Map<Id, CodeRef>>();

  const catalog: Pick<DirectoryStore, 'codes' | 'dataSources'> = {
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
      findByCoding: async (system, code) => readThrough(codings, codes.get)(codingOf(system, code)),
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
        innerMap(supported, id).set(code.id, { id: code.id, system: code.system, code: code.code });
      },
      removeCode: async (id, codeId) => {
        if (!supported.get(id)?.delete(codeId)) throw codeNotSupported(id, codeId);
      },
      codes: async (id) => [...(supported.get(id)?.values() ?? [])].sort(byId).map(copy),
    },
  };
  holding(catalog.codes, { codes: () => codes.rows, codings: () => codings });
  holding(catalog.dataSources, { dataSources: () => sources.rows, dataSourceCodes: () => nestedEntries(supported) });
  return catalog;
}
