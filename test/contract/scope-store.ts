/**
 * THE contract of the scope reads (shared/auth/store/port.ts), run against every adapter: the same
 * relations written, the same answers read, so the in-memory twin cannot drift from the DynamoDB
 * adapter. The relations are the directory's (a patient's memberships, a study's data sources); each
 * adapter's world writes them its own way (the directory's functions on the table, the twin's
 * `relations`). Each test makes its own organizations, patients, studies and data sources.
 */
import { describe, expect, it } from 'vitest';
import type { Id } from '../../shared/directory/model';
import type { ScopeStore } from '../../shared/auth/store/port';

/** What a test needs of an adapter: the store, fresh directory records, and the relations between them. */
export interface ScopeWorld {
  store: ScopeStore;
  organization(): Promise<Id>;
  patient(): Promise<Id>;
  study(organizationId: Id): Promise<Id>;
  dataSource(): Promise<Id>;
  join(organizationId: Id, patientId: Id): Promise<void>;
  leave(organizationId: Id, patientId: Id): Promise<void>;
  link(studyId: Id, dataSourceId: Id): Promise<void>;
  unlink(studyId: Id, dataSourceId: Id): Promise<void>;
}

export type ScopeAdapter = [name: string, make: () => ScopeWorld];

export function scopeStoreContract(adapters: readonly ScopeAdapter[]): void {
  describe.each(adapters)('scope store: %s', (_name, make) => {
    it('answers which of the patients named are members of an organization, in the order named', async () => {
      const world = make();
      const [org, other] = [await world.organization(), await world.organization()];
      const [a, b, c, d] = [await world.patient(), await world.patient(), await world.patient(), await world.patient()];
      await world.join(org, a);
      await world.join(org, c);
      await world.join(other, b);
      await world.join(other, c);
      expect(await world.store.membersAmong(org, [d, c, b, a])).toEqual([c, a]);
      expect(await world.store.membersAmong(org, [a, a])).toEqual([a, a]);
      expect(await world.store.membersAmong(other, [a, b, c])).toEqual([b, c]);
      expect(await world.store.membersAmong(org, [])).toEqual([]);

      await world.leave(org, c);
      expect(await world.store.membersAmong(org, [a, b, c])).toEqual([a]);
      expect(await world.store.membersAmong(other, [a, b, c])).toEqual([b, c]);
    });

    it('answers the studies that use a data source, ascending, as they are linked and unlinked', async () => {
      const world = make();
      const org = await world.organization();
      const [first, second, third] = [await world.study(org), await world.study(org), await world.study(org)];
      const [watch, scale] = [await world.dataSource(), await world.dataSource()];
      expect(await world.store.studiesUsingDataSource(watch)).toEqual([]);
      await world.link(third, watch);
      await world.link(first, watch);
      await world.link(first, watch);
      await world.link(second, scale);
      expect(await world.store.studiesUsingDataSource(watch)).toEqual([first, third]);
      expect(await world.store.studiesUsingDataSource(scale)).toEqual([second]);

      await world.unlink(first, watch);
      expect(await world.store.studiesUsingDataSource(watch)).toEqual([third]);
      expect(await world.store.studiesUsingDataSource(scale)).toEqual([second]);
    });
  });
}
