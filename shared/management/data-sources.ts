/**
 * Data sources (devices and apps) through `/api/v1/data_sources`: a catalogue every signed-in user
 * may read (a patient needs one to register a FHIR Source, a practitioner to add one to a study);
 * only superusers change it. `all_scopes` is the code table.
 */
import type { Caller, PractitionerCaller } from '../auth/caller';
import { requireSuperuser } from '../auth/scope';
import { listCodes } from '../directory/code-table';
import {
  addSupportedCode,
  createDataSource,
  deleteDataSource,
  getDataSource,
  listDataSources,
  listSupportedCodes,
  removeSupportedCode,
  updateDataSource,
  dataSourceNotFound,
  type DataSourceInput,
} from '../directory/data-sources';
import type { Code, DataSource, Id, Paging } from '../directory/model';
import { pageOf } from '../directory/paging';
import { codeRefView, codeView, dataSourceView, type CodeView } from './views';

/** The code table by id (small: tens of rows), for showing code references with their text. */
export async function codeTable(): Promise<Map<Id, Code>> {
  return new Map((await listCodes()).map((c) => [c.id, c]));
}

async function supportedScopes(dataSourceId: Id, table: ReadonlyMap<Id, Code>): Promise<CodeView[]> {
  return (await listSupportedCodes(dataSourceId)).map((ref) => codeRefView(ref, table));
}

async function dataSourceViews(sources: readonly DataSource[]) {
  const table = await codeTable();
  return Promise.all(sources.map(async (s) => dataSourceView(s, await supportedScopes(s.id, table))));
}

export async function listDataSourcesFor(_caller: Caller, paging: Paging) {
  const page = pageOf(await listDataSources(), paging);
  return { count: page.count, items: await dataSourceViews(page.items) };
}

async function existing(id: Id): Promise<DataSource> {
  const source = await getDataSource(id);
  if (!source) throw dataSourceNotFound(id);
  return source;
}

export async function readDataSource(_caller: Caller, id: Id) {
  return (await dataSourceViews([await existing(id)]))[0]!;
}

export async function createDataSourceBy(caller: PractitionerCaller, input: DataSourceInput) {
  requireSuperuser(caller);
  return (await dataSourceViews([await createDataSource(input)]))[0]!;
}

export async function updateDataSourceBy(caller: PractitionerCaller, id: Id, patch: Partial<DataSourceInput>) {
  requireSuperuser(caller);
  return (await dataSourceViews([await updateDataSource(id, patch)]))[0]!;
}

export async function deleteDataSourceBy(caller: PractitionerCaller, id: Id): Promise<void> {
  requireSuperuser(caller);
  await deleteDataSource(id);
}

/** The code table: every code a study may request and a data source may support. */
export async function allScopes(): Promise<CodeView[]> {
  return (await listCodes()).map(codeView);
}

export async function listSupportedScopes(_caller: Caller, id: Id): Promise<CodeView[]> {
  await existing(id);
  return supportedScopes(id, await codeTable());
}

export async function addSupportedScope(caller: PractitionerCaller, id: Id, codeId: Id): Promise<CodeView> {
  requireSuperuser(caller);
  const ref = await addSupportedCode(id, codeId);
  return codeRefView(ref, await codeTable());
}

export async function removeSupportedScope(caller: PractitionerCaller, id: Id, codeId: Id): Promise<void> {
  requireSuperuser(caller);
  await removeSupportedCode(id, codeId);
}
