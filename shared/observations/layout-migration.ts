/**
 * The domain's part of moving the readings to a new layout of the store
 * (docs/operations.md#moving-observations-to-layout-3): what a stored reading keeps of its
 * payload (by its code's schema), for a reading stored before values were lifted, and the day
 * summaries recomputed from the readings moved. The walk over the tables is the store's
 * (`store/layout-3-migration.ts`), run by the operator's command and by `npm start`.
 */
import { allCodes } from './code-table-cache';
import type { KeptValue, StoredObservation } from './model';
import { rebuildSummaries, refreshDay } from './stats/keep';
import { keptValuesOfStored } from './values';

export async function layoutMigrationSteps() {
  const schemaOf = new Map((await allCodes()).map((c) => [c.id, c.code]));
  return {
    lift: (reading: StoredObservation): KeptValue[] | undefined => {
      const schemaCode = schemaOf.get(reading.codeId);
      return schemaCode === undefined ? undefined : keptValuesOfStored(reading, schemaCode);
    },
    rebuild: rebuildSummaries,
    refreshDay: (patientId: number, codeId: number, day: string) => refreshDay({ patientId, codeId, day }),
  };
}
