/** Data sources (FHIR Device): devices and apps that produce observations, with the codes they support. */
import { badRequest } from '../http/errors';
import { directoryStore } from './store/current';
import { getCodes } from './code-table';
import { now } from './fields';
import { DATA_SOURCE_TYPES, type CodeRef, type DataSource, type DataSourceType, type Id } from './model';

export { dataSourceNotFound } from './store/port';

export interface DataSourceInput {
  name: string;
  type: DataSourceType;
}

function assertType(type: string): void {
  if (!(DATA_SOURCE_TYPES as readonly string[]).includes(type)) {
    throw badRequest(`Unknown data source type '${type}'.`, 'code-invalid', { fields: { type: [`"${type}" is not a valid choice.`] } });
  }
}

export async function createDataSource(input: DataSourceInput): Promise<DataSource> {
  assertType(input.type);
  const { dataSources } = directoryStore();
  const at = now();
  const source: DataSource = { id: await dataSources.newId(), name: input.name, type: input.type, createdAt: at, updatedAt: at };
  await dataSources.insert(source);
  return source;
}

export const getDataSource = (id: Id) => directoryStore().dataSources.get(id);

/** Data sources for ids, in the order given; unknown ids are skipped. */
export const getDataSources = (ids: readonly Id[]) => directoryStore().dataSources.getMany(ids);

/** Every data source, in id order. */
export const listDataSources = () => directoryStore().dataSources.list();

export async function updateDataSource(id: Id, patch: Partial<DataSourceInput>): Promise<DataSource> {
  if (patch.type !== undefined) assertType(patch.type);
  return directoryStore().dataSources.update(id, (current) => ({ ...current, ...patch, updatedAt: now() }));
}

/** Deletes a data source, its supported codes and its links to studies. */
export async function deleteDataSource(id: Id): Promise<void> {
  const { dataSources, studies } = directoryStore();
  await dataSources.remove(id);
  await studies.unlinkDataSource(id);
}

/** Declares that a data source supports a code (idempotent); 400 for a code not in the table. */
export async function addSupportedCode(dataSourceId: Id, codeId: Id): Promise<CodeRef> {
  const [code] = await getCodes([codeId]);
  if (!code) throw badRequest(`Code ${codeId} not found.`, 'not-found', { fields: { scopeCodeId: [`Invalid pk "${codeId}" - object does not exist.`] } });
  const ref: CodeRef = { id: code.id, system: code.system, code: code.code };
  await directoryStore().dataSources.addCode(dataSourceId, ref);
  return ref;
}

export const removeSupportedCode = (dataSourceId: Id, codeId: Id) => directoryStore().dataSources.removeCode(dataSourceId, codeId);

/** The codes a data source supports, in code id order. */
export const listSupportedCodes = (dataSourceId: Id) => directoryStore().dataSources.codes(dataSourceId);
