/**
 * A data folder made before the observations table's layout 3 holds its readings in the layout-2
 * table (or, older still, the layout-1 table). When `npm start` has just created the layout-3 table
 * beside it, the readings are moved across once (the move the operations runbook runs on AWS), so a
 * local user keeps their data; and blocks kept in an earlier format of the block codec are
 * rewritten in the current one. The progress is kept in the data folder: a start stopped part-way
 * resumes at the next start.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { config } from '../shared/config';
import { layoutMigrationSteps } from '../shared/observations/layout-migration';
import { freshMigration, migrateToLayout3, migrationReport, type MigrationProgress } from '../shared/observations/store/layout-3-migration';
import { freshRecode, recodeEveryBlock, recodeFinished, recodeOfThisFormat, recodeReport, type RecodeProgress } from '../shared/observations/store/block-recode';
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

/**
 * Rewrites the blocks a data folder kept in an earlier format of the block codec in the current one,
 * once per format (the progress file, in the data folder, says when it is done; a start stopped
 * part-way resumes it). A table created just now holds none. Returns the run's report, or undefined
 * when there was nothing to do.
 */
export async function upgradeBlockFormat(created: readonly string[], progressFile: string): Promise<string[] | undefined> {
  const saved = readProgress<RecodeProgress>(progressFile);
  if (recodeFinished(saved)) return undefined;
  const progress = recodeOfThisFormat(saved) ? saved : undefined;
  if (!progress && created.includes(config().observationsTable)) {
    writeProgress(progressFile, { ...freshRecode(1), segments: [{ done: true }] });
    return undefined;
  }
  const done = await recodeEveryBlock({ progress: progress ?? freshRecode(1), save: (p) => writeProgress(progressFile, p) });
  return done.rewritten > 0 || done.mismatches > 0 ? recodeReport(done) : undefined;
}
