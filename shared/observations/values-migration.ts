/**
 * The domain's part of lifting the values of readings stored before values were lifted
 * (docs/operations.md#lifting-the-values-of-stored-readings): what a stored reading keeps of its
 * payload (by its code's schema), and the rebuild of a patient's day summaries from their rows.
 * The walk over the table is the store's (`store/dynamo-values-migration.ts`), run by the
 * operator's command and by `npm start`.
 */
import { allCodes } from './code-table-cache';
import type { KeptValue, StoredObservation } from './model';
import { rebuildSummaries } from './stats/keep';
import { keptValuesOfStored } from './values';

export interface ValuesMigrationSteps {
  lift: (reading: StoredObservation) => KeptValue[] | undefined;
  rebuild: (patientId: number) => Promise<unknown>;
}

export async function valuesMigrationSteps(): Promise<ValuesMigrationSteps> {
  const schemaOf = new Map((await allCodes()).map((c) => [c.id, c.code]));
  return {
    lift: (reading) => {
      const schemaCode = schemaOf.get(reading.codeId);
      return schemaCode === undefined ? undefined : keptValuesOfStored(reading, schemaCode);
    },
    rebuild: rebuildSummaries,
  };
}
