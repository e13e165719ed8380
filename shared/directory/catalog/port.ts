/**
 * The catalog's store port: what the code table and the data sources need kept, in their own
 * terms. Two adapters implement it, DynamoDB (`dynamo.ts`, the service's) and in memory
 * (`memory.ts`, a twin for fast tests); one contract suite (test/contract/catalog-store.ts) runs
 * against both, so they cannot drift. Checks of the input (types, key text) stay in the domain
 * functions (`../code-table.ts`, `../data-sources.ts`), once, in front of either adapter.
 *
 * The errors a store raises for a refused change are the same values from either adapter, built here.
 */
import { conflict, notFound } from '../../http/errors';
import type { Code, CodeRef, DataSource, Id } from '../model';

export interface CodeRecords {
  /** A fresh code id. */
  newId(): Promise<Id>;
  /** Stores a new code; 409 when its (system, code) is already in the table. */
  insert(code: Code): Promise<void>;
  get(id: Id): Promise<Code | undefined>;
  /** Codes for ids, in the order given; unknown ids are skipped. */
  getMany(ids: readonly Id[]): Promise<Code[]>;
  findByCoding(system: string, code: string): Promise<Code | undefined>;
  /** Every code, in id order. */
  list(): Promise<Code[]>;
}

export interface DataSourceRecords {
  /** A fresh data source id. */
  newId(): Promise<Id>;
  insert(source: DataSource): Promise<void>;
  get(id: Id): Promise<DataSource | undefined>;
  /** Data sources for ids, in the order given; unknown ids are skipped. */
  getMany(ids: readonly Id[]): Promise<DataSource[]>;
  /** Every data source, in id order. */
  list(): Promise<DataSource[]>;
  /**
   * Replaces the data source by `change(current)`, unless another change landed in between (409);
   * 404 when there is none. Returns what was stored.
   */
  update(id: Id, change: (current: DataSource) => DataSource): Promise<DataSource>;
  /** Deletes the data source and the codes it supports; 404 when there is none. */
  remove(id: Id): Promise<void>;
  /** Declares a supported code (idempotent); 404 when the data source is missing. */
  addCode(id: Id, code: CodeRef): Promise<void>;
  /** 404 when the data source does not support the code. */
  removeCode(id: Id, codeId: Id): Promise<void>;
  /** The codes a data source supports, in code id order. */
  codes(id: Id): Promise<CodeRef[]>;
}

export interface CatalogStore {
  codes: CodeRecords;
  dataSources: DataSourceRecords;
}

export const codingTaken = (code: Pick<Code, 'system' | 'code'>) =>
  conflict(`The code ${code.system}|${code.code} already exists.`, { fields: { code: ['This code already exists.'] } });
export const dataSourceNotFound = (id: Id) => notFound(`Data source ${id} not found.`);
export const codeNotSupported = (id: Id, codeId: Id) => notFound(`Data source ${id} does not support code ${codeId}.`);
