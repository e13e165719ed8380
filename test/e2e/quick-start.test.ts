/**
 * The README's contract: `npm start` serves the service with its own DynamoDB Local and s3rver,
 * Ctrl-C stops it cleanly, and a second start reuses the data folder.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../local/engines';
import { REPO_ROOT } from '../../local/runtime';

const dataDir = mkdtempSync(join(tmpdir(), 'cdx-quickstart-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** A clean environment, as a new user's shell has: no endpoints of the test engines. */
function userEnvironment(port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(AWS_|RESOURCE_PREFIX|DATA_DIR|SITE_URL|VITEST|NODE_ENV|LOG_LEVEL)/.test(k)) continue;
    env[k] = v;
  }
  return { ...env, PORT: String(port), DATA_DIR: dataDir };
}

async function start(port: number): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], { cwd: REPO_ROOT, env: userEnvironment(port) });
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const deadline = Date.now() + 90_000;
  while (!output.includes('is running at')) {
    if (child.exitCode !== null) throw new Error(`npm start exited: ${output}`);
    if (Date.now() > deadline) throw new Error(`npm start did not come up: ${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, output: () => output };
}

async function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((done) => {
    child.once('exit', (code) => done(code));
    child.kill('SIGINT');
  });
}

describe('npm start', () => {
  it('serves the metadata, stops on Ctrl-C and reuses its data folder', async () => {
    const port = await freePort();
    const first = await start(port);
    try {
      expect(first.output()).toContain(`http://localhost:${port}`);
      expect(first.output()).toContain('demo data seeded');
      expect(first.output()).toContain(`http://localhost:${port}/clients/portal/?code=localhost%3A${port}_`);
      for (const path of ['/FHIR/R5/metadata', '/fhir/r5/metadata']) {
        const res = await fetch(`http://127.0.0.1:${port}${path}`);
        expect(res.status).toBe(200);
        expect((await res.json()).resourceType).toBe('CapabilityStatement');
      }
    } finally {
      expect(await stop(first.child)).toBe(0);
    }
    expect(first.output()).toContain('Stopped.');

    const second = await start(port);
    try {
      expect(second.output()).toContain('reused');
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    } finally {
      expect(await stop(second.child)).toBe(0);
    }
  }, 240_000);
});
