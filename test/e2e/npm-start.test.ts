/**
 * The README's own commands, as a new user types them, against one data folder: `npm start` comes
 * up with demo data (how fast is the bench's: `npm run bench -- npm-start`); every command block of the quick start runs as written (in
 * bash, the port substituted, in the order a reader meets them): `npm run --silent token -- <who>`
 * prints a token the service accepts; the demo patients list through `GET /FHIR/R5/Patient`; a
 * sample upload stores and re-posts; the demo study exports; Ctrl-C stops it cleanly. A block this
 * file does not run fails it. Then `SMART_FIXTURE=1 npm start` (docs/portal.md) reuses the
 * folder and its invitation link works in a browser from start to finish.
 *
 * The service starts twice in the whole suite (the second start is what proves the folder is
 * reused), so these checks share each start instead of paying for one each.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { resetSigningKeys } from '../../shared/auth/signing-keys';
import { verifyAccessToken } from '../../shared/auth/tokens';
import { resetConfig } from '../../shared/config';
import { REPO_ROOT } from '../../local/runtime';
import { launchBrowser } from '../support/browser';
import { NpmStart, START_TIMEOUT_MS } from '../support/npm-start';
import { docsPythonExamples, pythonRequired, pythonWithPandas } from '../support/docs-python';
import { counts, phonePage, pickHospital } from '../support/portal';

const dataDir = mkdtempSync(join(tmpdir(), 'cdx-npm-start-'));
/** Where the README's blocks run: inside the checkout (npm finds the project above it), so the files they write stay out of its root. */
mkdirSync(join(REPO_ROOT, '.scratch'), { recursive: true });
const shellDir = mkdtempSync(join(REPO_ROOT, '.scratch', 'readme-'));
const service = new NpmStart(dataDir);
let browser: Browser | undefined;
/** Made (or found) while the service starts: the docs' Python examples run once it is up. */
const docsPython = pythonWithPandas();

const userEnvironment = (extra: Record<string, string> = {}) => service.environment(extra);
const npmStart = (extra: Record<string, string> = {}) => service.start(extra);
const ctrlC = () => service.stop();

function npmRun(args: readonly string[], extra: Record<string, string> = {}) {
  const out = spawnSync('npm', ['run', '--silent', ...args], { cwd: REPO_ROOT, env: userEnvironment(extra), encoding: 'utf8' });
  return { status: out.status, stdout: out.stdout, stderr: out.stderr };
}

const token = (who: string, extra: Record<string, string> = {}) => npmRun(['token', '--', who], extra);

/** The claims of a token, verified with the running service's key (its data folder) and issuer. */
async function claimsOf(accessToken: string) {
  process.env.DATA_DIR = dataDir;
  process.env.SITE_URL = `http://localhost:${service.port}`;
  resetConfig();
  resetSigningKeys();
  return verifyAccessToken(accessToken);
}

const url = (path: string) => service.url(path);

/** Every number held by a member named `value` in a JSON answer, however it nests them (a `$stats` answer's statistics). */
function numbersNamedValue(json: unknown): number[] {
  if (Array.isArray(json)) return json.flatMap(numbersNamedValue);
  if (json === null || typeof json !== 'object') return [];
  return Object.entries(json).flatMap(([key, v]) => (key === 'value' && typeof v === 'number' ? [v] : numbersNamedValue(v)));
}

/** The shell blocks of the README's quick start (its section up to the next `## `), in order. */
function quickStartBlocks(): string[] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Quick start');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** A block's commands: lines continued with `\` joined (as the shell joins them), blank lines left out. */
const commandsOf = (block: string) => block.replace(/\\\n/g, '').split('\n').map((l) => l.trim()).filter(Boolean);

const QUICK_START = quickStartBlocks();
/**
 * The blocks as this file runs them: the first is the install (`npm ci && npm start`, which the
 * start below is, and `npm ci && npm test`, which `.ci/run` runs on a clean clone); each other one
 * runs as written in the test named for it. A block added, removed or moved fails the check below.
 */
const BLOCKS = { install: 0, tryIt: 1, patients: 2, upload: 3, exportStudy: 4 } as const;

/**
 * Runs a quick-start block in one bash, as a reader pastes it into a terminal beside `npm start`
 * (the port substituted). `before` stands for what the reader's shell holds from earlier blocks and
 * `after` is the test's own probe, both run in the same shell. Returns what each command printed,
 * in order; a failing command stops the block and fails the test.
 */
function runBlock(block: number, { before = [], after = [] }: { before?: string[]; after?: string[] } = {}): string[] {
  const commands = [...before, ...commandsOf(QUICK_START[block]!.replaceAll('localhost:8000', `localhost:${service.port}`)), ...after];
  const script = ['set -e', ...commands.flatMap((c) => [c, "printf '\\n@@end@@\\n'"])].join('\n');
  const out = spawnSync('bash', ['-c', script], { cwd: shellDir, env: userEnvironment(), encoding: 'utf8', timeout: 60_000 });
  expect(out.status, `${script}\n${out.stdout}\n${out.stderr}`).toBe(0);
  const outputs = out.stdout.split('\n@@end@@\n');
  expect(outputs.pop()).toBe('');
  expect(outputs).toHaveLength(commands.length);
  return outputs;
}

afterAll(async () => {
  await browser?.close();
  await ctrlC();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(shellDir, { recursive: true, force: true });
});

describe("the README's quick start", () => {
  it('has the blocks this file runs, and the install block is the one it knows', () => {
    expect(QUICK_START).toHaveLength(Object.keys(BLOCKS).length);
    expect(commandsOf(QUICK_START[BLOCKS.install]!).map((c) => c.replace(/\s+#.*$/, ''))).toEqual(['npm ci && npm start', 'npm ci && npm test']);
    expect(commandsOf(QUICK_START[BLOCKS.tryIt]!)[0]).toMatch(/^curl -s http:\/\/localhost:8000\/FHIR\/R5\/metadata/);
    expect(commandsOf(QUICK_START[BLOCKS.patients]!)[0]).toBe('TOKEN=$(npm run --silent token -- practitioner)');
    expect(commandsOf(QUICK_START[BLOCKS.upload]!)[0]).toBe('PTOKEN=$(npm run --silent token -- patient)');
    expect(commandsOf(QUICK_START[BLOCKS.exportStudy]!)[0]).toMatch(/^STATUS=\$\(curl /);
  });
});

describe('npm start, as the README says', () => {
  it('comes up with demo data and serves the metadata on both bases', async () => {
    await npmStart();
    expect(service.output).toContain(`http://localhost:${service.port}`);
    expect(service.output).toContain('demo data seeded');
    expect(service.output).toContain('npm run --silent token -- practitioner');
    expect(service.output).toContain(`http://localhost:${service.port}/clients/portal/?code=localhost%3A${service.port}_`);
    for (const path of ['/FHIR/R5/metadata', '/fhir/r5/metadata']) {
      const res = await fetch(url(path));
      expect(res.status).toBe(200);
      expect((await res.json()).resourceType).toBe('CapabilityStatement');
    }
  }, START_TIMEOUT_MS + 10_000);

  it('answers the "Try it" block: the CapabilityStatement and the health check', () => {
    const [metadata, health] = runBlock(BLOCKS.tryIt);
    expect(metadata).toMatch(/"resourceType":\s*"CapabilityStatement"/);
    expect(metadata!.length).toBeLessThanOrEqual(400);
    expect(health).toMatch(/"status":\s*"ok"/);
  });

  it('npm run --silent token prints only a token, for the demo accounts and any account email', async () => {
    const practitioner = token('practitioner');
    expect(practitioner.status).toBe(0);
    expect(practitioner.stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    expect(await claimsOf(practitioner.stdout.trim())).toMatchObject({ sub: '1', kind: 'practitioner', iss: `http://localhost:${service.port}` });
    expect(await claimsOf(token('patient').stdout.trim())).toMatchObject({ kind: 'patient' });
    expect(await claimsOf(token('PRACTITIONER@example.org').stdout.trim())).toMatchObject({ sub: '1' });
    const other = await claimsOf(token('other-practitioner').stdout.trim());
    expect(other).toMatchObject({ kind: 'practitioner' });
    expect(other.sub).not.toBe('1');
    expect(await claimsOf(token('other-patient').stdout.trim())).toMatchObject({ kind: 'patient', patient: '3' });
  });

  it('npm run token fails clearly, with nothing on stdout, for an unknown account or another port', () => {
    const unknown = token('nobody@example.org');
    expect(unknown).toMatchObject({ status: 1, stdout: '' });
    expect(unknown.stderr).toContain('No account with email nobody@example.org');
    // A word that is a name on every plain object is no account either.
    expect(token('constructor')).toMatchObject({ status: 1, stdout: '' });
    expect(token('practitioner', { PORT: String(service.port + 1) })).toMatchObject({ status: 1, stdout: '' });
  });

  it("lists the demo patients to the practitioner's token (the README's block), and nothing without one; patient 1's readings are worth a look", async () => {
    const [tokenLine, fhir, api, lows, stats] = runBlock(BLOCKS.patients);
    expect(tokenLine).toBe('');
    const bundle = JSON.parse(fhir!) as { resourceType: string; total: number; entry: Array<{ resource: { id: string; name: Array<{ family: string }> } }> };
    expect(bundle).toMatchObject({ resourceType: 'Bundle', total: 2 });
    expect(bundle.entry.map((e) => [e.resource.id, e.resource.name[0]!.family])).toEqual([
      ['1', 'Rivera'],
      ['2', 'Chen'],
    ]);
    const listed = JSON.parse(api!) as { results: Array<{ id: number; name: string }> };
    expect(listed.results.map((p) => p.id)).toEqual([1, 2]);
    // The glucose sensor's night lows, and a week of heart rates whose days differ.
    expect(JSON.parse(lows!)).toMatchObject({ resourceType: 'Bundle', type: 'searchset', total: expect.any(Number) });
    expect(JSON.parse(lows!).total).toBeGreaterThan(0);
    const statistics = JSON.parse(stats!);
    expect(statistics.resourceType).toBe('Parameters');
    const values = numbersNamedValue(statistics);
    expect(new Set(values).size).toBeGreaterThan(10);
    expect(Math.max(...values)).toBeGreaterThan(120);
    expect(Math.min(...values)).toBeLessThan(65);
    const accessToken = token('practitioner').stdout.trim();
    const res = await fetch(url('/FHIR/R5/Patient'), { headers: { Authorization: `Bearer ${accessToken}` } });
    expect(res.headers.get('content-type')).toContain('application/fhir+json');
    expect((await fetch(url('/FHIR/R5/Patient'))).status).toBe(401);
  });

  it("stores the patient's first upload (the README's block: npm run sample), answers its re-post as already stored, and finds it", async () => {
    const [tokenLine, sampleLine, first, retry, newest] = runBlock(BLOCKS.upload);
    expect([tokenLine, sampleLine]).toEqual(['', '']);
    type BatchResponse = { type: string; entry: Array<{ response: { status: string; location: string } }> };
    const response = JSON.parse(first!) as BatchResponse;
    expect(response.type).toBe('batch-response');
    expect(response.entry.map((e) => e.response.status)).toEqual(['201 Created', '201 Created', '201 Created']);
    const again = JSON.parse(retry!) as BatchResponse;
    expect(again.entry.map((e) => e.response.status)).toEqual(['200 OK', '200 OK', '200 OK']);
    expect(JSON.parse(newest!)).toMatchObject({ resourceType: 'Bundle', type: 'searchset', entry: [{}, {}, {}] });
    const headers = { Authorization: `Bearer ${token('patient').stdout.trim()}` };
    const search = await fetch(url('/FHIR/R5/Observation?code=omh:heart-rate:2.0&_sort=-_lastUpdated&_count=3'), { headers });
    const found = (await search.json()) as { entry: Array<{ resource: { id: string } }> };
    const created = response.entry.map((e) => /Observation\/([0-9]+)/.exec(e.response.location)![1]);
    expect(found.entry.map((e) => e.resource.id).sort()).toEqual(created.sort());
  });

  it("exports study 1 as the README's block does: a status URL, then the manifest, each file a 307 to its bytes", async () => {
    // The block needs the practitioner's TOKEN of the block before it, as in the reader's terminal.
    const [tokenLine, kickOff, firstPoll, status] = runBlock(BLOCKS.exportStudy, {
      before: [commandsOf(QUICK_START[BLOCKS.patients]!)[0]!],
      after: ['printf %s "$STATUS"'],
    });
    expect([tokenLine, kickOff]).toEqual(['', '']);
    expect(status!.startsWith(url('/FHIR/R5/$export-status/'))).toBe(true);
    // 202 while it runs (no body), else already the manifest.
    if (firstPoll) expect(JSON.parse(firstPoll)).toHaveProperty('output');
    const auth = { Authorization: `Bearer ${token('practitioner').stdout.trim()}` };
    let answer = await fetch(status!, { headers: auth });
    for (let i = 0; i < 60 && (answer.status === 202 || answer.status === 429); i++) {
      await new Promise((r) => setTimeout(r, Number(answer.headers.get('retry-after') ?? 1) * 1000));
      answer = await fetch(status!, { headers: auth });
    }
    expect(answer.status).toBe(200);
    const manifest = (await answer.json()) as { output: Array<{ type: string; url: string; count: number }> };
    // Study 1 is patient 1's (Alex Rivera).
    expect(manifest.output.filter((f) => f.type === 'Patient').reduce((n, f) => n + f.count, 0)).toBe(1);
    expect(manifest.output.map((f) => f.type)).toEqual(['Patient', 'Observation']);
    const readings = manifest.output.filter((f) => f.type === 'Observation');
    expect(readings.length).toBeGreaterThan(0);
    const file = await fetch(readings[0]!.url, { headers: auth });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/fhir+ndjson');
    expect((await file.text()).trim().split('\n')).toHaveLength(readings[0]!.count);
  });

  it('runs the Python examples of docs/ as written (the port and the token the example names substituted), with pandas 3 and requests', async (test) => {
    const { python, why } = await docsPython;
    if (!python && !pythonRequired()) {
      console.warn(`The docs' Python examples are SKIPPED (${why}); under CI=true they fail instead.`);
      test.skip();
    }
    expect(python, why).toBeDefined();
    const examples = docsPythonExamples();
    expect(examples.map((e) => e.name)).toContain('docs/export.md "Reading the files with pandas"');
    for (const [i, { name, code }] of examples.entries()) {
      // A reader pastes the token the example's comment names: `TOKEN = "..."  # npm run --silent token -- <who>`.
      const who = /^TOKEN = "\.\.\."\s+# npm run --silent token -- ([\w@.-]+)/m.exec(code)?.[1];
      const script = code
        .replaceAll('localhost:8000', `localhost:${service.port}`)
        .replace(/^TOKEN = "\.\.\."/m, () => `TOKEN = ${JSON.stringify(token(who ?? 'practitioner').stdout.trim())}`);
      const file = join(shellDir, `example-${i}.py`);
      writeFileSync(file, script);
      const out = spawnSync(python!, [file], { cwd: shellDir, encoding: 'utf8', timeout: 90_000 });
      // Python's traceback, each line cut short (pandas quotes whole files in its messages).
      const traceback = out.stderr.split('\n').map((line) => line.slice(0, 300)).join('\n');
      expect(out.status, `${name} failed:\n${traceback}`).toBe(0);
      expect(out.stdout.trim(), `${name} printed nothing`).not.toBe('');
    }
  }, 180_000);

  it('stops cleanly on Ctrl-C', async () => {
    expect(await ctrlC()).toBe(true);
  });

  it('SMART_FIXTURE=1 npm start reuses the data folder, runs two hospitals in the picker, and prints an invitation link that works in a browser', async () => {
    await npmStart({ SMART_FIXTURE: '1', LOG_LEVEL: 'warn' });
    expect(service.output).toContain('reused');
    expect((await fetch(url('/health'))).status).toBe(200);
    expect(service.output).toMatch(/SMART fixture {2}Fixture General Hospital \(R4\) at http:\/\/127\.0\.0\.1:\d+\/fhir\/r4/);
    expect(service.output).toMatch(/SMART fixture {2}Fixture Community Clinic \(R5\) at http:\/\/127\.0\.0\.1:\d+\/fhir\/r5/);
    expect(service.output).toMatch(/Brands {9}list "sample": loaded 2 FHIR endpoints, 5 facilities/);
    const links = service.output.match(/http:\/\/localhost:\d+\/clients\/portal\/\?code=\S+/g) ?? [];
    expect(links).toHaveLength(1); // the seed's earlier link, now replaced, is not printed
    browser = await launchBrowser();
    const { page, errors } = await phonePage(browser);
    await page.goto(links[0]!);
    await pickHospital(page, 'springfield', 'Fixture General Hospital');
    await page.getByRole('button', { name: 'Allow' }).click({ timeout: 20_000 });
    await page.waitForSelector('body[data-state=done]', { timeout: 60_000 });
    // 25 laboratory results, 3 vital signs and 18 other records: the invalid status is not saved.
    expect(await counts(page)).toMatchObject({ stored: 45, storedWithLoss: 1, failed: 1, hospital: 'Fixture General Hospital' });
    expect(errors).toEqual([]);
    expect(await ctrlC()).toBe(true);
  }, START_TIMEOUT_MS + 100_000);
});
