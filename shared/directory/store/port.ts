/**
 * The directory's store port: what the directory's families need kept, in their own terms. Two
 * adapters implement it, DynamoDB (`dynamo.ts`, the service's) and in memory (`memory.ts`, a twin
 * for fast tests); one contract suite (test/contract/directory-store.ts) runs against both, so they
 * cannot drift. Checks of the input (types, key text) and the making of a record (ids, timestamps,
 * defaults) stay in the domain functions (`../code-table.ts`, `../data-sources.ts`,
 * `../oauth-clients.ts`), once, in front of either adapter.
 *
 * Ported so far: the catalog (codes, data sources) and OAuth clients. Organizations, users,
 * memberships, patients, studies, consents and FHIR Sources still reach DynamoDB directly.
 *
 * The errors a store raises for a refused change are the same values from either adapter, built here.
 */
import { conflict, notFound } from '../../http/errors';
import type { Code, CodeRef, DataSource, Id, OAuthClient } from '../model';

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

export interface OAuthClientRecords {
  /** A fresh client number. */
  newId(): Promise<Id>;
  /** Stores a new client; 409 when its `clientId` is taken. */
  insert(client: OAuthClient): Promise<void>;
  /** By OAuth `client_id`, strongly consistent (a deleted key stops working at once). */
  get(clientId: string): Promise<OAuthClient | undefined>;
  /** By client number. */
  getById(id: Id): Promise<OAuthClient | undefined>;
  /** Every client, in number order. */
  list(): Promise<OAuthClient[]>;
  /** A practitioner's clients (API keys), in number order. */
  listOfOwner(userId: Id): Promise<OAuthClient[]>;
  /** As `DataSourceRecords.update`, by `client_id`. */
  update(clientId: string, change: (current: OAuthClient) => OAuthClient): Promise<OAuthClient>;
  /** Deletes the client; 404 when there is none. Returns what was deleted. */
  remove(clientId: string): Promise<OAuthClient>;
}

export interface DirectoryStore {
  codes: CodeRecords;
  dataSources: DataSourceRecords;
  oauthClients: OAuthClientRecords;
}

export const codingTaken = (code: Pick<Code, 'system' | 'code'>) =>
  conflict(`The code ${code.system}|${code.code} already exists.`, { fields: { code: ['This code already exists.'] } });
export const dataSourceNotFound = (id: Id) => notFound(`Data source ${id} not found.`);
export const codeNotSupported = (id: Id, codeId: Id) => notFound(`Data source ${id} does not support code ${codeId}.`);
export const clientIdTaken = (clientId: string) => conflict(`Client id '${clientId}' is already taken.`, { fields: { clientId: ['This client id is already taken.'] } });
export const clientNotFound = (id: Id | string) => notFound(`Client ${id} not found.`);
