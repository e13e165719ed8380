/**
 * The real `npm start` as a user runs it in a terminal: its own process group, a data folder and a
 * port of the test's, none of the test run's engine endpoints or settings. It is up once it prints
 * `Press Ctrl-C`; Ctrl-C stops the whole group. The banner names the demo accounts and their passwords.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../local/engines';
import { REPO_ROOT } from '../../local/runtime';

/**
 * How long `npm start` may take to come up before the test gives up on it: a guard against a start
 * that hangs, not a measure (a busy machine may take minutes to seed; the time it takes is the
 * bench's, `npm run bench -- npm-start`). A start that fails ends the wait at once (its exit).
 */
export const START_TIMEOUT_MS = 600_000;

export class NpmStart {
  /** Everything the current start printed (stdout and stderr). */
  output = '';
  /** Chosen on the first start; later starts reuse it. */
  port = 0;
  private child: ChildProcess | undefined;
  /** Whether the current start's output pipes have closed. */
  private closed = false;

  constructor(readonly dataDir: string) {}

  url(path: string): string {
    return `http://localhost:${this.port}${path}`;
  }

  /** A new user's shell: none of the test run's engine endpoints, table prefixes or settings. */
  environment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) {
      if (/^(AWS_|RESOURCE_PREFIX|DATA_DIR|SITE_URL|VITEST|NODE_ENV|LOG_LEVEL|PORT|SMART_|npm_)/.test(k)) continue;
      env[k] = v;
    }
    return { ...env, PORT: String(this.port), DATA_DIR: this.dataDir, ...extra };
  }

  /** `npm start` in its own process group, as in a terminal; resolves with the milliseconds it took to say it is running. */
  async start(extra: Record<string, string> = {}): Promise<number> {
    if (!this.port) this.port = await freePort();
    const startedAt = Date.now();
    this.output = '';
    this.closed = false;
    const child = spawn('npm', ['start'], { cwd: REPO_ROOT, env: this.environment(extra), detached: true });
    this.child = child;
    child.once('close', () => (this.closed = true));
    child.stdout!.on('data', (c) => (this.output += c));
    child.stderr!.on('data', (c) => (this.output += c));
    while (!this.output.includes('Press Ctrl-C')) {
      if (child.exitCode !== null) throw new Error(`npm start exited: ${this.output}`);
      if (Date.now() - startedAt > START_TIMEOUT_MS) throw new Error(`npm start did not come up: ${this.output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    return Date.now() - startedAt;
  }

  /**
   * Ctrl-C to the whole group (npm and the service), as a terminal sends it. Resolves with whether
   * the service stopped cleanly: it printed `Stopped.` (its last line before exiting 0) and npm
   * ended by that Ctrl-C or with 0, not with an error code. npm ends at once on Ctrl-C while the
   * service is still stopping, so this waits for the output pipes to close (every process of the
   * group that held them has exited), not for npm's exit. True at once when it never started.
   */
  async stop(): Promise<boolean> {
    const child = this.child;
    if (!child) return true;
    const ended = (code: number | null, signal: NodeJS.Signals | null) => (code === 0 || signal === 'SIGINT') && this.output.includes('Stopped.');
    if (this.closed) return ended(child.exitCode, child.signalCode);
    const exited = new Promise<boolean>((done) => child.once('close', (code, signal) => done(ended(code, signal))));
    process.kill(-child.pid!, 'SIGINT');
    return exited;
  }

  /** The demo accounts' passwords the banner prints (`<email>  password <password>`), by email. */
  passwords(): Map<string, string> {
    return new Map([...this.output.matchAll(/^\s+\w+\s+(\S+@\S+)\s+password (\S+)/gm)].map((m) => [m[1]!, m[2]!]));
  }
}
