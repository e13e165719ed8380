/** Starts the local gateway with the real handlers on a free port, against this file's stores. */
import { startGateway, type Gateway } from '../../local/gateway';
import { loadHandlers } from '../../local/handlers';
import { buildPortalSite } from '../../scripts/portal-site';
import type { PortalConfig } from '../../shared/portal/config';

let built: string | undefined;

/** The built site, once per test process. */
export function builtSite(): string {
  built ??= buildPortalSite();
  return built;
}

export async function startTestGateway(options: { portal?: PortalConfig } = {}): Promise<Gateway> {
  return startGateway({ handlers: await loadHandlers(), staticDir: builtSite(), port: 0, host: '127.0.0.1', ...options });
}
