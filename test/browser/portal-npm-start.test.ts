/**
 * The portal walkthrough of docs/portal.md: `SMART_FIXTURE=1 npm start` runs the SMART fixture, points the
 * portal at it, and prints an invitation link that works in a browser from start to finish.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../local/engines';
import { REPO_ROOT } from '../../local/runtime';
import { launchBrowser } from '../support/browser';
import { counts, phonePage } from '../support/portal';

/** A whole flow in Chromium takes seconds; on 2 cores shared with the rest of the suite, more. */
const FLOW_TIMEOUT = 120_000;

const dataDir = mkdtempSync(join(tmpdir(), 'cdx-portal-start-'));
let child: ChildProcess | undefined;
let output = '';
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(AWS_|RESOURCE_PREFIX|DATA_DIR|SITE_URL|VITEST|NODE_ENV|LOG_LEVEL|SMART_)/.test(k)) env[k] = v;
  child = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], { cwd: REPO_ROOT, env: { ...env, PORT: String(port), DATA_DIR: dataDir, SMART_FIXTURE: '1', LOG_LEVEL: 'warn' } });
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const deadline = Date.now() + 100_000;
  while (!output.includes('Press Ctrl-C')) {
    if (child.exitCode !== null) throw new Error(`npm start exited: ${output}`);
    if (Date.now() > deadline) throw new Error(`npm start did not come up: ${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (child && child.exitCode === null) {
    await new Promise((done) => {
      child!.once('exit', done);
      child!.kill('SIGINT');
    });
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe('SMART_FIXTURE=1 npm start', () => {
  it('prints a working invitation link for the fixture hospital', async () => {
    expect(output).toMatch(/SMART fixture {2}R4 hospital at http:\/\/127\.0\.0\.1:\d+\/fhir\/r4/);
    const links = output.match(/http:\/\/localhost:\d+\/clients\/portal\/\?code=\S+/g) ?? [];
    expect(links).toHaveLength(1); // the seed's earlier link, now replaced, is not printed
    const { page, errors } = await phonePage(browser);
    await page.goto(links[0]!);
    await page.getByRole('button', { name: 'Allow' }).click({ timeout: 20_000 });
    await page.waitForSelector('body[data-state=done]', { timeout: 60_000 });
    expect(await counts(page)).toMatchObject({ stored: 24, storedWithLoss: 1, failed: 1 });
    expect(errors).toEqual([]);
  }, FLOW_TIMEOUT);
});
