/**
 * The gateway process of a load run (started by `load-gateway.ts`): `npm start`'s gateway with the
 * real handlers, against the stores the environment names (the parent's engines and tables), on a
 * free loopback port. It sends its URL over IPC once it listens and, when asked, its memory: the
 * peak RSS sampled since the last ask, and the kernel's peak over its whole life.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway } from '../../local/gateway';
import { loadHandlers } from '../../local/handlers';

/** Sampling often enough to catch a burst of a few tens of milliseconds. */
const SAMPLE_MS = 25;

export interface GatewayMemory {
  /** Bytes resident now. */
  rss: number;
  /** Largest RSS sampled since the previous report. */
  sampledPeak: number;
  /** The kernel's peak RSS of the process since it started (bytes). */
  maxRss: number;
}

// Load runs exercise the API; the portal's files are not part of them, so an empty site will do.
const site = mkdtempSync(join(tmpdir(), 'cdx-load-site-'));
const gateway = await startGateway({ handlers: await loadHandlers(), staticDir: site, port: 0, host: '127.0.0.1' });

let sampledPeak = process.memoryUsage.rss();
setInterval(() => (sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss())), SAMPLE_MS).unref();

process.on('message', (message) => {
  if (message !== 'memory') return;
  const rss = process.memoryUsage.rss();
  const memory: GatewayMemory = { rss, sampledPeak: Math.max(sampledPeak, rss), maxRss: process.resourceUsage().maxRSS * 1024 };
  sampledPeak = rss;
  process.send!({ memory });
});
// The parent going away (or disconnecting on purpose) ends the run.
process.on('disconnect', () => void gateway.close().finally(() => process.exit(0)));
process.send!({ url: gateway.url });
