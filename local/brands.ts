/**
 * `npm run brands -- <command>` (scripts/brands.ts lists the commands): on the tables of the
 * running `npm start` for DATA_DIR (else on its own engines over that data folder), or, with
 * `BRANDS_TABLE` set, on that table with whatever credentials the AWS SDK finds (a deployed
 * stack's table: docs/operations.md#loading-the-hospital-directory).
 */
import { runBrandsCommand } from '../scripts/brands';
import { UsageError } from '../scripts/usage-error';
import { BrandsFileError } from '../shared/brands/import';
import { runOperatorCommand } from './operator-command';

runOperatorCommand({
  tableSetting: 'BRANDS_TABLE',
  run: runBrandsCommand,
  refusalCode: (e) => (e instanceof UsageError ? 2 : e instanceof BrandsFileError ? 1 : undefined),
});
