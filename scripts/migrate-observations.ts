/**
 * `npm run migrate:observations -- [--from <table>] [--to <table>] [--progress <file>] [--segments <n>]`
 *
 * Copies the observations of a layout-1 table into the layout-2 table (`shared/observations/
 * store/dynamo-layout-migration.ts`), with whatever credentials and endpoint the AWS SDK finds (a deployment's
 * account, or `AWS_ENDPOINT_URL_DYNAMODB` for another engine). Idempotent and resumable: the
 * position is saved to the progress file after every page, and a run started again with the same
 * file continues from it; items already in the target are left as they are. The steps around it
 * are in docs/operations.md.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { config } from '../shared/config';
import { toLayout2 } from '../shared/observations/store/dynamo-layout-migration';
import { copyTable, type CopyProgress } from '../shared/store/copy-table';
import { OBSERVATIONS_LAYOUT_1 } from '../shared/store/tables';

const { values } = parseArgs({
  options: {
    from: { type: 'string', default: `${config().resourcePrefix}${OBSERVATIONS_LAYOUT_1.name}` },
    to: { type: 'string', default: config().observationsTable },
    progress: { type: 'string', default: '.migrate-observations.json' },
    segments: { type: 'string', default: '4' },
  },
});

const progressFile = values.progress;
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
