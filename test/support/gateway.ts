/** Starts the local gateway with the real handlers on a free port, against this file's stores. */
import { freePort } from '../../local/engines';
import { startGateway, type Gateway } from '../../local/gateway';
import { loadHandlers } from '../../local/handlers';
import type { RateLimit } from '../../local/rate-limit';
import { buildPortalSite } from '../../scripts/portal-site';
import { resetConfig } from '../../shared/config';
import type { PortalConfig } from '../../shared/portal/config';

let built: string | undefined;

/** The built site, once per test process. */
export function builtSite(): string {
  built ??= buildPortalSite();
  return built;
}

/**
 * A gateway on a free port. With `asSite`, it is the site: SITE_URL becomes its URL (set before it
 * starts, so call it before issuing tokens), and the absolute links it answers point back at it,
 * as they would at a deployment's own domain.
 */
export async function startTestGateway(options: { portal?: PortalConfig; asSite?: boolean; rateLimit?: RateLimit } = {}): Promise<Gateway> {
  const { asSite, ...rest } = options;
  let port = 0;
  if (asSite) {
    port = await freePort();
    process.env.SITE_URL = `http://localhost:${port}`;
    resetConfig();
  }
  return startGateway({ handlers: await loadHandlers(), staticDir: builtSite(), port, host: '127.0.0.1', ...rest });
}
