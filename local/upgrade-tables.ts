/**
 * A data folder made before the observations table's layout 2 holds its readings in the layout-1
 * table. When `npm start` has just created the layout-2 table beside it, the readings are copied
 * across once (the copy the operations runbook runs on AWS), so a local user keeps their data.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { config } from '../shared/config';
import { toLayout2 } from '../shared/observations/store/dynamo-layout-migration';
import { copyTable } from '../shared/store/copy-table';
import { tableExists } from '../shared/store/provision';
import { OBSERVATIONS_LAYOUT_1 } from '../shared/store/tables';
import { migrateValues, valuesLifted } from '../shared/observations/store/dynamo-values-migration';
import { valuesMigrationSteps } from '../shared/observations/values-migration';

/** Copies a layout-1 observations table into a layout-2 table created just now; returns the items copied. */
export async function upgradeObservationsTable(client: DynamoDBClient, created: readonly string[]): Promise<number> {
  const cfg = config();
  const previous = `${cfg.resourcePrefix}${OBSERVATIONS_LAYOUT_1.name}`;
  if (!created.includes(cfg.observationsTable) || previous === cfg.observationsTable || !(await tableExists(client, previous))) return 0;
  const done = await copyTable({ from: previous, to: cfg.observationsTable, transform: toLayout2 });
  return done.copied;
}

/**
 * Readings stored before values were lifted get them once (the migration the runbook runs on AWS):
 * a data folder whose observations table carries the marker is left alone, a new one is marked.
 */
export async function liftStoredValues(): Promise<number> {
  if (await valuesLifted()) return 0;
  const done = await migrateValues(await valuesMigrationSteps());
  return done.lifted;
}
