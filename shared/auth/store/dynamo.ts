/** The scope reads on the directory table: membership items by key, a data source's studies on `gsi1`. */
import { batchGet, queryAll } from '../../directory/db';
import { idFromSortKey, indexes, keys } from '../../directory/keys';
import type { ScopeStore } from './port';

export const dynamoScopeStore: ScopeStore = {
  membersAmong: async (organizationId, patientIds) => {
    const members = await batchGet(patientIds.map((p) => keys.organizationPatient(organizationId, p)));
    const found = new Set(members.map((m) => String(m.sk)));
    return patientIds.filter((p) => found.has(keys.organizationPatient(organizationId, p).sk));
  },
  studiesUsingDataSource: async (dataSourceId) => {
    const index = indexes.studiesOfDataSource(dataSourceId);
    const links = await queryAll({ index: index.name, pk: index.pk, skPrefix: index.skPrefix, attributes: ['gsi1sk'] });
    return links.map((l) => idFromSortKey(String(l.gsi1sk)));
  },
};
