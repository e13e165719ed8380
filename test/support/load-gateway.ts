/**
 * Starts the gateway of a load run in a process of its own (`load-gateway-process.ts`), so its
 * memory is its own: the load generator, the fixtures and the final count run in this process, and
 * DynamoDB Local in its Java process. The child inherits this process's environment (engines,
 * table prefix, data folder with the token signing key, SITE_URL), plus a generous per-caller rate
 * limit so that the limiter is present but does not shape the run. Its logs are off unless
 * `LOAD_GATEWAY_LOG_LEVEL` names a level (e.g. `error`, to see why a request failed).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { config } from '../../shared/config';
import type { GatewayMemory } from './load-gateway-process';

export type { GatewayMemory };

/** Requests a second and burst per caller: far above what one simulated device sends. */
export const GENEROUS_RATE_LIMIT = { RATE_LIMIT_PER_SECOND: '1000', RATE_LIMIT_BURST: '2000' };

const STARTUP_MS = 120_000;

export interface LoadGateway {
  url: string;
  pid: number;
  /** The child's memory (see `GatewayMemory`); the sampled peak restarts at each call. */
  memory(): Promise<GatewayMemory>;
  stop(): Promise<void>;
}

function nextMessage<T>(child: ChildProcess, pick: (message: any) => T | undefined, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`the load gateway sent no ${what} within ${STARTUP_MS / 1000} s`)), STARTUP_MS);
    const onMessage = (message: unknown) => {
      const value = pick(message);
      if (value !== undefined) done(undefined, value);
    };
    const onExit = (code: number | null) => done(new Error(`the load gateway exited (${code}) before sending its ${what}`));
    const done = (error?: Error, value?: T) => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(value as T);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

export async function startLoadGateway(env: Record<string, string> = GENEROUS_RATE_LIMIT): Promise<LoadGateway> {
  const child = fork(fileURLToPath(new URL('./load-gateway-process.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    // The child's tokens must name the issuer this process signs them with.
    env: { ...process.env, SITE_URL: config().siteUrl, LOG_LEVEL: process.env.LOAD_GATEWAY_LOG_LEVEL ?? 'silent', ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const url = await nextMessage(child, (m) => m?.url as string | undefined, 'URL');
    return {
      url,
      pid: child.pid!,
      memory: () => {
        const reply = nextMessage(child, (m) => m?.memory as GatewayMemory | undefined, 'memory report');
        child.send('memory');
        return reply;
      },
      stop: () => stopChild(child),
    };
  } catch (e) {
    await stopChild(child);
    throw e;
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.connected) child.disconnect();
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
