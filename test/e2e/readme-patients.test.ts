/**
 * The README's quick start, as a new user types it: `npm start` (a child process), then
 * `TOKEN=$(npm run --silent token -- practitioner)`, then `GET /FHIR/R5/Patient` with that token
 * lists the demo patients, all within a minute of starting.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../local/engines';
import { REPO_ROOT } from '../../local/runtime';

const dataDir = mkdtempSync(join(tmpdir(), 'cdx-readme-'));
let service: ChildProcess | undefined;

/** A new user's shell: none of the test run's engine endpoints or table prefixes. */
function userEnvironment(port: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(AWS_|RESOURCE_PREFIX|DATA_DIR|SITE_URL|VITEST|NODE_ENV|LOG_LEVEL|PORT|npm_)/.test(k)) continue;
    env[k] = v;
  }
  return { ...env, PORT: String(port), DATA_DIR: dataDir };
}

afterAll(async () => {
  if (service?.pid !== undefined && service.exitCode === null) {
    const exited = new Promise((done) => service!.once('exit', done));
    // npm runs the service in its own process group: Ctrl-C reaches all of it, as in a terminal.
    process.kill(-service.pid, 'SIGINT');
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe('README quick start', () => {
  it('npm start, a practitioner token, and the demo patients through GET /FHIR/R5/Patient within a minute', async () => {
    const port = await freePort();
    const env = userEnvironment(port);
    const startedAt = Date.now();
    service = spawn('npm', ['start'], { cwd: REPO_ROOT, env, detached: true });
    let output = '';
    service.stdout!.on('data', (c) => (output += c));
    service.stderr!.on('data', (c) => (output += c));
    while (!output.includes('is running at')) {
      if (service.exitCode !== null) throw new Error(`npm start exited: ${output}`);
      if (Date.now() - startedAt > 60_000) throw new Error(`npm start did not come up within a minute: ${output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(output).toContain('npm run --silent token -- practitioner');

    const token = spawnSync('npm', ['run', '--silent', 'token', '--', 'practitioner'], { cwd: REPO_ROOT, env, encoding: 'utf8' });
    expect(token.status, token.stderr).toBe(0);
    const accessToken = token.stdout.trim();

    const res = await fetch(`http://localhost:${port}/FHIR/R5/Patient`, { headers: { Authorization: `Bearer ${accessToken}` } });
    const elapsed = Date.now() - startedAt;
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/fhir+json');
    const bundle = (await res.json()) as { resourceType: string; total: number; entry: Array<{ resource: { id: string; name: Array<{ family: string }> } }> };
    expect(bundle).toMatchObject({ resourceType: 'Bundle', total: 2 });
    expect(bundle.entry.map((e) => [e.resource.id, e.resource.name[0]!.family])).toEqual([
      ['1', 'Rivera'],
      ['2', 'Chen'],
    ]);
    expect(elapsed).toBeLessThan(60_000);

    const anonymous = await fetch(`http://localhost:${port}/FHIR/R5/Patient`);
    expect(anonymous.status).toBe(401);

    // The first upload: the demo patient's token, a sample Bundle, POST, and the reading read back.
    const patientToken = spawnSync('npm', ['run', '--silent', 'token', '--', 'patient'], { cwd: REPO_ROOT, env, encoding: 'utf8' });
    expect(patientToken.status, patientToken.stderr).toBe(0);
    const sample = spawnSync('npm', ['run', '--silent', 'sample', '--', 'omh:heart-rate:2.0', '3'], { cwd: REPO_ROOT, env, encoding: 'utf8' });
    expect(sample.status, sample.stderr).toBe(0);
    const headers = { Authorization: `Bearer ${patientToken.stdout.trim()}`, 'Content-Type': 'application/fhir+json' };
    const upload = await fetch(`http://localhost:${port}/FHIR/R5/`, { method: 'POST', headers, body: sample.stdout });
    expect(upload.status).toBe(200);
    const response = (await upload.json()) as { type: string; entry: Array<{ response: { status: string; location: string } }> };
    expect(response.type).toBe('batch-response');
    expect(response.entry.map((e) => e.response.status)).toEqual(['201 Created', '201 Created', '201 Created']);
    const again = (await (await fetch(`http://localhost:${port}/FHIR/R5/`, { method: 'POST', headers, body: sample.stdout })).json()) as typeof response;
    expect(again.entry.map((e) => e.response.status)).toEqual(['200 OK', '200 OK', '200 OK']);
    const search = await fetch(`http://localhost:${port}/FHIR/R5/Observation?code=omh:heart-rate:2.0&_sort=-_lastUpdated&_count=3`, { headers });
    const found = (await search.json()) as { entry: Array<{ resource: { id: string } }> };
    const created = response.entry.map((e) => /Observation\/([0-9]+)/.exec(e.response.location)![1]);
    expect(found.entry.map((e) => e.resource.id).sort()).toEqual(created.sort());
  }, 180_000);
});
