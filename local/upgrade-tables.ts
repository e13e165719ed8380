/**
 * A data folder made before the observations table's layout 3 holds its readings in the layout-2
 * table (or, older still, the layout-1 table). When `npm start` has just created the layout-3 table
 * beside it, the readings are moved across once (the move the operations runbook runs on AWS), so a
 * local user keeps their data. The progress is kept in the data folder: a start stopped part-way
 * resumes the move at the next start.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { config } from '../shared/config';
import { layoutMigrationSteps } from '../shared/observations/layout-migration';
import { freshMigration, migrateToLayout3, migrationReport, type MigrationProgress } from '../shared/observations/store/layout-3-migration';
import { tableExists } from '../shared/store/provision';
import { OBSERVATIONS_LAYOUT_1, OBSERVATIONS_LAYOUT_2 } from '../shared/store/tables';
import { readProgress, writeProgress } from '../scripts/progress-file';

/**
 * Moves the readings of the newest earlier observations table into a layout-3 table created just
 * now, or finishes a move a stopped start began; returns the move's report, or undefined when
 * there was nothing to move.
 */
export async function upgradeObservationsTable(client: DynamoDBClient, created: readonly string[], progressFile: string): Promise<string[] | undefined> {
  const cfg = config();
  let progress = readProgress<MigrationProgress>(progressFile);
  if (progress?.stage === 'done' || (progress && progress.to !== cfg.observationsTable)) progress = undefined;
  if (!progress) {
    if (!created.includes(cfg.observationsTable)) return undefined;
    const source = await newestEarlierTable(client);
    if (!source) return undefined;
    progress = freshMigration(source);
  }
  const done = await migrateToLayout3({ steps: await layoutMigrationSteps(), progress, save: (p) => writeProgress(progressFile, p) });
  return migrationReport(done);
}

async function newestEarlierTable(client: DynamoDBClient): Promise<string | undefined> {
  const cfg = config();
  for (const layout of [OBSERVATIONS_LAYOUT_2, OBSERVATIONS_LAYOUT_1]) {
    const name = `${cfg.resourcePrefix}${layout.name}`;
    if (name !== cfg.observationsTable && (await tableExists(client, name))) return name;
  }
  return undefined;
}
