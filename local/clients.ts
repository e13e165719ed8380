/**
 * `npm run clients -- list|revoke <client_id>` (scripts/clients.ts lists the commands): on the
 * tables of the running `npm start` for DATA_DIR (else on its own engines over that data folder), or,
 * with `DIRECTORY_TABLE` set, on that table with whatever credentials the AWS SDK finds (a deployed
 * stack's `<namePrefix>directory`: docs/operations.md#assistants-registered-clients).
 */
import { runClientsCommand } from '../scripts/clients';
import { UsageError } from '../scripts/usage-error';
import { runOperatorCommand } from './operator-command';

runOperatorCommand({ tableSetting: 'DIRECTORY_TABLE', run: runClientsCommand, refusalCode: (e) => (e instanceof UsageError ? 2 : undefined) });
