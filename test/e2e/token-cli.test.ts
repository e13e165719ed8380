/**
 * The README's way to a token: with `npm start` running, `npm run --silent token -- <who>` prints an
 * access token and nothing else, which the running service accepts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetSigningKeys } from '../../shared/auth/signing-keys';
import { verifyAccessToken } from '../../shared/auth/tokens';
import { resetConfig } from '../../shared/config';
import { freePort } from '../../local/engines';
import { REPO_ROOT } from '../../local/runtime';

const dataDir = mkdtempSync(join(tmpdir(), 'cdx-token-cli-'));
let port: number;
let service: ChildProcess;

function userEnvironment(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(AWS_|RESOURCE_PREFIX|DATA_DIR|SITE_URL|VITEST|NODE_ENV|LOG_LEVEL|PORT)/.test(k)) continue;
    env[k] = v;
  }
  return { ...env, DATA_DIR: dataDir, ...extra };
}

function token(who: string, extra: Record<string, string> = {}) {
  const out = spawnSync(process.execPath, ['--import', 'tsx', 'local/token.ts', who], { cwd: REPO_ROOT, env: userEnvironment(extra), encoding: 'utf8' });
  return { status: out.status, stdout: out.stdout, stderr: out.stderr };
}

beforeAll(async () => {
  port = await freePort();
  service = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], { cwd: REPO_ROOT, env: userEnvironment({ PORT: String(port) }) });
  let output = '';
  service.stdout!.on('data', (c) => (output += c));
  service.stderr!.on('data', (c) => (output += c));
  const deadline = Date.now() + 90_000;
  while (!output.includes('is running at')) {
    if (service.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not come up: ${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(output).toContain('npm run --silent token -- practitioner');
}, 120_000);

afterAll(async () => {
  await new Promise<void>((done) => {
    if (service.exitCode !== null) return done();
    service.once('exit', () => done());
    service.kill('SIGINT');
  });
  rmSync(dataDir, { recursive: true, force: true });
});

async function claimsOf(accessToken: string) {
  process.env.DATA_DIR = dataDir;
  process.env.SITE_URL = `http://localhost:${port}`;
  resetConfig();
  resetSigningKeys();
  return verifyAccessToken(accessToken);
}

describe('npm run token', () => {
  it('prints only a token for the demo practitioner, through npm as the README says', async () => {
    const out = spawnSync('npm', ['run', '--silent', 'token', '--', 'practitioner'], { cwd: REPO_ROOT, env: userEnvironment({ PORT: String(port) }), encoding: 'utf8' });
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    expect(await claimsOf(out.stdout.trim())).toMatchObject({ sub: '1', kind: 'practitioner', iss: `http://localhost:${port}` });
  }, 60_000);

  it('understands `patient` and any account email', async () => {
    const patient = token('patient');
    expect(patient.status).toBe(0);
    expect(await claimsOf(patient.stdout.trim())).toMatchObject({ kind: 'patient' });
    const byEmail = token('PRACTITIONER@example.org');
    expect(byEmail.status).toBe(0);
    expect(await claimsOf(byEmail.stdout.trim())).toMatchObject({ sub: '1' });
  }, 60_000);

  it("names the second organization's accounts: other-practitioner and other-patient", async () => {
    const practitioner = token('other-practitioner');
    expect(practitioner.status).toBe(0);
    expect(await claimsOf(practitioner.stdout.trim())).toMatchObject({ kind: 'practitioner' });
    expect((await claimsOf(practitioner.stdout.trim())).sub).not.toBe('1');
    const patient = token('other-patient');
    expect(patient.status).toBe(0);
    expect(await claimsOf(patient.stdout.trim())).toMatchObject({ kind: 'patient', patient: '3' });
  }, 60_000);

  it('fails clearly, with nothing on stdout, for an unknown account or another port', () => {
    const unknown = token('nobody@example.org');
    expect(unknown.status).toBe(1);
    // A word that is a name on every plain object is no account either.
    expect(token('constructor')).toMatchObject({ status: 1, stdout: '' });
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toContain('No account with email nobody@example.org');
    const wrongPort = token('practitioner', { PORT: String(port + 1) });
    expect(wrongPort.status).toBe(1);
    expect(wrongPort.stdout).toBe('');
  }, 60_000);
});
