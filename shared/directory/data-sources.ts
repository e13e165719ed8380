/** Data sources (FHIR Device): devices and apps that produce observations, with the codes they support. */
import { badRequest, conflict, notFound } from '../http/errors';
import { getCodes } from './code-table';
import { check, MAX_TRANSACTION, now, put, queryAll, remove, transact, withoutKeys, type Item } from './db';
import { entityStore } from './entity';
import { newId } from './ids';
import { GSI1, indexes, keys, KIND, REL } from './keys';
import { DATA_SOURCE_TYPES, type CodeRef, type DataSource, type DataSourceType, type Id } from './model';
import { unlinkFromStudies } from './studies';

export interface DataSourceInput {
  name: string;
  type: DataSourceType;
}

export const dataSourceNotFound = (id: Id) => notFound(`Data source ${id} not found.`);

function assertType(type: string): void {
  if (!(DATA_SOURCE_TYPES as readonly string[]).includes(type)) {
    throw badRequest(`Unknown data source type '${type}'.`, 'code-invalid', { fields: { type: [`"${type}" is not a valid choice.`] } });
  }
}

const toDataSource = (item: Item) => withoutKeys(item) as unknown as DataSource;

const dataSources = entityStore<DataSource, Id>({
  key: keys.dataSource,
  toEntity: toDataSource,
  toItem: (source) => ({ ...keys.dataSource(source.id), ...indexes.dataSource(source.id), ...source }),
  notFound: dataSourceNotFound,
});

export async function createDataSource(input: DataSourceInput): Promise<DataSource> {
  assertType(input.type);
  const id = await newId('dataSource');
  const at = now();
  const source: DataSource = { id, name: input.name, type: input.type, createdAt: at, updatedAt: at };
  await transact([dataSources.create(source, () => conflict('Data source id collision.'))]);
  return source;
}

export const getDataSource = dataSources.get;

/** Data sources for ids, in the order given; unknown ids are skipped. */
export const getDataSources = dataSources.getMany;

/** Every data source, in id order. */
export async function listDataSources(): Promise<DataSource[]> {
  return (await queryAll({ index: GSI1, pk: KIND.dataSource })).map(toDataSource);
}

export async function updateDataSource(id: Id, patch: Partial<DataSourceInput>): Promise<DataSource> {
  if (patch.type !== undefined) assertType(patch.type);
  const { entity, version } = await dataSources.read(id);
  const next: DataSource = { ...entity, ...patch, updatedAt: now() };
  await transact([dataSources.replace(next, version)]);
  return next;
}

/** Deletes a data source, its supported codes and its links to studies. */
export async function deleteDataSource(id: Id): Promise<void> {
  const { version } = await dataSources.read(id);
  await transact([dataSources.remove(id, version)]);
  await unlinkFromStudies(indexes.studiesOfDataSource(id), (studyId) => keys.studyDataSource(studyId, id));
  const codes = (await queryAll({ pk: keys.dataSource(id).pk, attributes: ['pk', 'sk'] })).map((c) => remove({ pk: c.pk as string, sk: c.sk as string }));
  for (let i = 0; i < codes.length; i += MAX_TRANSACTION) await transact(codes.slice(i, i + MAX_TRANSACTION));
}

/** Declares that a data source supports a code (idempotent); 400 for a code not in the table. */
export async function addSupportedCode(dataSourceId: Id, codeId: Id): Promise<CodeRef> {
  const [code] = await getCodes([codeId]);
  if (!code) throw badRequest(`Code ${codeId} not found.`, 'not-found', { fields: { scopeCodeId: [`Invalid pk "${codeId}" - object does not exist.`] } });
  const ref: CodeRef = { id: code.id, system: code.system, code: code.code };
  await transact([
    put({ ...keys.dataSourceCode(dataSourceId, codeId), ...ref }),
    check(keys.dataSource(dataSourceId), 'attribute_exists(pk)', {}, () => dataSourceNotFound(dataSourceId)),
  ]);
  return ref;
}

export async function removeSupportedCode(dataSourceId: Id, codeId: Id): Promise<void> {
  await transact([
    remove(keys.dataSourceCode(dataSourceId, codeId), { condition: 'attribute_exists(pk)' }, () =>
      notFound(`Data source ${dataSourceId} does not support code ${codeId}.`),
    ),
  ]);
}

/** The codes a data source supports, in code id order. */
export async function listSupportedCodes(dataSourceId: Id): Promise<CodeRef[]> {
  const items = await queryAll({ pk: keys.dataSource(dataSourceId).pk, skPrefix: REL.code });
  return items.map((i) => ({ id: i.id as Id, system: i.system as string, code: i.code as string }));
}
