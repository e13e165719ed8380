/** The catalog (codes, data sources and the codes each supports) on the directory table. */
import { conflict, notFound } from '../../http/errors';
import { check, getItem, putNew, put, queryAll, remove, transact, transactInChunks, type Item } from '../../store/directory-table';
import { entityStore } from '../../store/directory-entity';
import { newId } from '../ids';
import { GSI1, indexes, keys, KIND, REL } from '../../store/directory-keys';
import type { Code, DataSource } from '../model';
import { codeNotSupported, codingTaken, dataSourceNotFound, type CodeRecords, type DataSourceRecords } from './port';

function toCode(item: Item): Code {
  return { id: item.id as number, system: item.system as string, code: item.code as string, display: item.display as string };
}

const codeEntities = entityStore<Code, number>({
  key: keys.code,
  toEntity: toCode,
  toItem: (code) => ({ ...keys.code(code.id), ...indexes.code(code.id), ...code }),
  notFound: (id) => notFound(`Code ${id} not found.`),
});

export const codes: CodeRecords = {
  newId: () => newId('code'),
  insert: (code) =>
    transact([codeEntities.create(code, () => conflict('Code id collision.')), putNew({ ...keys.codeCoding(code.system, code.code), codeId: code.id }, () => codingTaken(code))]),
  get: codeEntities.get,
  getMany: codeEntities.getMany,
  findByCoding: async (system, code) => {
    const claim = await getItem(keys.codeCoding(system, code));
    return claim ? codeEntities.get(claim.codeId as number) : undefined;
  },
  list: async () => (await queryAll({ index: GSI1, pk: KIND.code })).map(toCode),
};

const sourceEntities = entityStore<DataSource, number>({
  key: keys.dataSource,
  toItem: (source) => ({ ...keys.dataSource(source.id), ...indexes.dataSource(source.id), ...source }),
  notFound: dataSourceNotFound,
});

export const dataSources: DataSourceRecords = {
  newId: () => newId('dataSource'),
  insert: (source) => transact([sourceEntities.create(source, () => conflict('Data source id collision.'))]),
  get: sourceEntities.get,
  getMany: sourceEntities.getMany,
  list: async () => (await queryAll({ index: GSI1, pk: KIND.dataSource })).map(sourceEntities.fromItem),
  update: sourceEntities.change,
  remove: async (id) => {
    const { version } = await sourceEntities.read(id);
    await transact([sourceEntities.remove(id, version)]);
    const supported = (await queryAll({ pk: keys.dataSource(id).pk, attributes: ['pk', 'sk'] })).map((c) => remove({ pk: c.pk as string, sk: c.sk as string }));
    await transactInChunks(supported);
  },
  addCode: (id, code) =>
    transact([
      put({ ...keys.dataSourceCode(id, code.id), id: code.id, system: code.system, code: code.code }),
      check(keys.dataSource(id), 'attribute_exists(pk)', {}, () => dataSourceNotFound(id)),
    ]),
  removeCode: (id, codeId) => transact([remove(keys.dataSourceCode(id, codeId), { condition: 'attribute_exists(pk)' }, () => codeNotSupported(id, codeId))]),
  codes: async (id) => {
    const items = await queryAll({ pk: keys.dataSource(id).pk, skPrefix: REL.code });
    return items.map((i) => ({ id: i.id as number, system: i.system as string, code: i.code as string }));
  },
};
