/**
 * `npm run migrate:observations -- [--from <table>] [--to <table>] [--progress <file>] [--segments <n>]`
 *
 * Copies the observations of a layout-1 table into the layout-2 table (`shared/observations/
 * store/dynamo-layout-migration.ts`), with whatever credentials and endpoint the AWS SDK finds (a deployment's
 * account, or `AWS_ENDPOINT_URL_DYNAMODB` for another engine). Idempotent and resumable: the
 * position is saved to the progress file after every page, and a run started again with the same
 * file continues from it; items already in the target are left as they are.
 *
 * `npm run migrate:observations -- values [--all] [--progress <file>] [--segments <n>]`
 *
 * Gives the readings stored before values were lifted their values, then rebuilds the day
 * summaries of the patients touched, or with `--all` of every patient (the repair of summaries a
 * fault left behind) (`shared/observations/store/dynamo-values-migration.ts`), on the configured
 * observations table; resumable and idempotent in the same way. The steps around
 * both are in docs/operations.md.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { config } from '../shared/config';
import { toLayout2 } from '../shared/observations/store/dynamo-layout-migration';
import { copyTable, type CopyProgress } from '../shared/store/copy-table';
import { OBSERVATIONS_LAYOUT_1 } from '../shared/store/tables';
import { freshValuesProgress, migrateValues, type ValuesProgress } from '../shared/observations/store/dynamo-values-migration';
import { valuesMigrationSteps } from '../shared/observations/values-migration';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    from: { type: 'string', default: `${config().resourcePrefix}${OBSERVATIONS_LAYOUT_1.name}` },
    to: { type: 'string', default: config().observationsTable },
    progress: { type: 'string' },
    segments: { type: 'string', default: '4' },
    all: { type: 'boolean', default: false },
  },
});

if (positionals.length > 1 || (positionals[0] !== undefined && positionals[0] !== 'values')) {
  console.error('usage: migrate:observations [values] [--progress <file>] [--segments <n>] (the layout copy also takes --from and --to)');
  process.exit(2);
}
if (positionals[0] === 'values') {
  await liftValues(values.progress ?? '.migrate-values.json', values.segments, values.all);
  process.exit(0);
}

const progressFile = values.progress ?? '.migrate-observations.json';
const resumed = existsSync(progressFile) ? (JSON.parse(readFileSync(progressFile, 'utf8')) as CopyProgress & { from: string; to: string }) : undefined;
if (resumed && (resumed.from !== values.from || resumed.to !== values.to)) {
  console.error(`${progressFile} belongs to a copy from ${resumed.from} to ${resumed.to}; give another --progress file`);
  process.exit(2);
}
const segments = Number(values.segments);
if (!Number.isInteger(segments) || segments < 1 || segments > 64) {
  console.error('--segments must be a whole number from 1 to 64');
  process.exit(2);
}

const save = (progress: CopyProgress) => {
  writeFileSync(`${progressFile}.tmp`, JSON.stringify({ ...progress, from: values.from, to: values.to }));
  renameSync(`${progressFile}.tmp`, progressFile);
};

console.log(`${resumed ? 'resuming the copy' : 'copying'} of ${values.from} into ${values.to}`);
const done = await copyTable({ from: values.from, to: values.to, transform: toLayout2, segments, ...(resumed ? { progress: resumed } : {}), saveProgress: save });
console.log(`done: ${done.copied} items copied, ${done.present} already in ${values.to} (progress in ${progressFile})`);

async function liftValues(file: string, segmentsText: string, everyone: boolean) {
  const segmentCount = Number(segmentsText);
  if (!Number.isInteger(segmentCount) || segmentCount < 1 || segmentCount > 64) {
    console.error('--segments must be a whole number from 1 to 64');
    process.exit(2);
  }
  const table = config().observationsTable;
  const saved = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ValuesProgress & { table: string }) : undefined;
  if (saved && (saved.table !== table || saved.everyone !== everyone)) {
    console.error(`${file} belongs to a run on ${saved.table}${saved.everyone ? ' with --all' : ''}; give another --progress file`);
    process.exit(2);
  }
  console.log(`${saved ? 'resuming the lifting' : 'lifting'} of the values of the readings in ${table}`);
  const done = await migrateValues({
    ...(await valuesMigrationSteps()),
    progress: saved ?? freshValuesProgress(segmentCount, everyone),
    save: (progress) => {
      writeFileSync(`${file}.tmp`, JSON.stringify({ ...progress, table }));
      renameSync(`${file}.tmp`, file);
    },
  });
  console.log(`done: ${done.lifted} readings given their values, day summaries of ${done.patients.length} patients rebuilt (progress in ${file})`);
}
