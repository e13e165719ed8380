/** Starts the local gateway with the real handlers on a free port, against this file's stores. */
import { join } from 'node:path';
import { startGateway, type Gateway } from '../../local/gateway';
import { loadHandlers } from '../../local/handlers';
import { REPO_ROOT } from '../../local/runtime';

export async function startTestGateway(): Promise<Gateway> {
  return startGateway({ handlers: await loadHandlers(), staticDir: join(REPO_ROOT, 'portal-site'), port: 0, host: '127.0.0.1' });
}
