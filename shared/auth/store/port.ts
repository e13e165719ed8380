/**
 * The reads caller scoping (`../scope.ts`) makes that the directory offers no function for: its
 * other reads go through the directory's own functions. Two adapters implement it, DynamoDB
 * (`dynamo.ts`, the service's) and in memory (`memory.ts`, a twin for fast tests); one contract
 * suite (test/contract/scope-store.ts) runs against both. The relations read here are written by
 * the directory (memberships, a study's data sources); once the directory's store port holds them,
 * these reads belong there.
 */
import type { Id } from '../../directory/model';

export interface ScopeStore {
  /** Of these patients, the ones who are members of the organization, in the order given (strongly consistent). */
  membersAmong(organizationId: Id, patientIds: readonly Id[]): Promise<Id[]>;
  /** The studies that use a data source, ascending; read from an index, so a link just made may show a moment later. */
  studiesUsingDataSource(dataSourceId: Id): Promise<Id[]>;
}
