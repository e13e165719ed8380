/**
 * `npm run migrate:observations -- [--from <table>] [--progress <file>] [--segments <n>] [--lanes <n>]`
 *
 * Moves the readings of the earlier observations table (layout 2, `<prefix>observations-v2` by
 * default, or a layout-1 table) into the configured one, layout 3
 * (`shared/observations/store/layout-3-migration.ts`), with whatever credentials and endpoint the
 * AWS SDK finds (a deployment's account, or `AWS_ENDPOINT_URL_DYNAMODB` for another engine).
 * Resumable: the progress is saved to the file after every page, and a run started again with the
 * same file continues from it; a finished one prints its counts again. Exits 1 when the check found
 * a mismatch.
 *
 * `npm run migrate:observations -- summaries [--progress <file>] [--segments <n>]`
 *
 * Rebuilds the day summaries of every patient of the configured table from their readings (the
 * repair of a summary a fault left behind; `shared/observations/store/summaries-rebuild.ts`),
 * resumable in the same way.
 *
 * `npm run migrate:observations -- blocks [--progress <file>] [--segments <n>]`
 *
 * Rewrites the blocks kept in an earlier format of the block codec in the current one
 * (`shared/observations/store/block-recode.ts`), each checked before it is put, resumable in the
 * same way; exits 1 when a check failed. The steps around all three are in docs/operations.md.
 */
import { parseArgs } from 'node:util';
import { config } from '../shared/config';
import { layoutMigrationSteps } from '../shared/observations/layout-migration';
import { rebuildSummaries } from '../shared/observations/stats/keep';
import { freshMigration, migrateToLayout3, migrationReport, type MigrationProgress } from '../shared/observations/store/layout-3-migration';
import { freshRebuild, rebuildEverySummary, type RebuildProgress } from '../shared/observations/store/summaries-rebuild';
import { freshRecode, recodeEveryBlock, recodeOfThisFormat, recodeReport, type RecodeProgress } from '../shared/observations/store/block-recode';
import { OBSERVATIONS_LAYOUT_2 } from '../shared/store/tables';
import { readProgress, writeProgress } from './progress-file';

const USAGE = [
  'usage: migrate:observations [--from <table>] [--progress <file>] [--segments <n>] [--lanes <n>]',
  '       migrate:observations summaries [--progress <file>] [--segments <n>]',
  '       migrate:observations blocks [--progress <file>] [--segments <n>]',
].join('\n');

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    from: { type: 'string', default: `${config().resourcePrefix}${OBSERVATIONS_LAYOUT_2.name}` },
    progress: { type: 'string' },
    segments: { type: 'string', default: '4' },
    lanes: { type: 'string', default: '4' },
  },
});

function wholeNumber(name: string, text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 64) fail(`--${name} must be a whole number from 1 to 64`);
  return n;
}

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

if (positionals.length > 1 || (positionals[0] !== undefined && positionals[0] !== 'summaries' && positionals[0] !== 'blocks')) fail(USAGE);
const segments = wholeNumber('segments', values.segments);
const to = config().observationsTable;

if (positionals[0] === 'summaries') {
  const file = values.progress ?? '.rebuild-summaries.json';
  const saved = readProgress<RebuildProgress>(file);
  if (saved && saved.table !== to) fail(`${file} belongs to a rebuild of ${saved.table}; give another --progress file`);
  console.log(`${saved ? 'resuming the rebuild' : 'rebuilding'} of the day summaries of every patient in ${to}`);
  const done = await rebuildEverySummary(rebuildSummaries, { progress: saved ?? freshRebuild(segments), save: (p) => writeProgress(file, p) });
  console.log(`done: ${done.patients} patients, ${done.days} days with readings, ${done.repaired} summaries written (progress in ${file})`);
  process.exit(0);
}

if (positionals[0] === 'blocks') {
  const file = values.progress ?? '.recode-blocks.json';
  const saved = readProgress<RecodeProgress>(file);
  if (saved !== undefined && !recodeOfThisFormat(saved)) fail(`${file} belongs to another table or format; give another --progress file`);
  console.log(`${saved ? 'resuming the rewrite' : 'rewriting'} of the blocks of ${to} kept in an earlier format`);
  const done = await recodeEveryBlock({ progress: saved ?? freshRecode(segments), save: (p) => writeProgress(file, p) });
  console.log([`done (progress in ${file}):`, ...recodeReport(done)].join('\n'));
  process.exit(done.mismatches > 0 ? 1 : 0);
}

const file = values.progress ?? '.migrate-observations.json';
if (values.from === to) fail(`--from names ${to}, the table the readings move into`);
const saved = readProgress<MigrationProgress>(file);
if (saved && (saved.from !== values.from || saved.to !== to)) fail(`${file} belongs to a move from ${saved.from} into ${saved.to}; give another --progress file`);
console.log(saved?.stage === 'done' ? `the move recorded in ${file} is finished` : `${saved ? 'resuming the move' : 'moving'} of the readings of ${values.from} into ${to}`);
const done = await migrateToLayout3({
  steps: await layoutMigrationSteps(),
  progress: saved ?? freshMigration(values.from, { segments, lanes: wholeNumber('lanes', values.lanes) }),
  save: (p) => writeProgress(file, p),
});
console.log([`done (progress in ${file}):`, ...migrationReport(done)].join('\n'));
process.exit(done.counts.mismatches > 0 ? 1 : 0);
