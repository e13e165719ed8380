/**
 * What a clone of the repository must never carry: files its own .gitignore excludes (a local run's
 * data folder, build output) and private key material (a JWK with its private member `d`, a PEM
 * private key). Run by `npm test` (test/unit/scripts/check-repository.test.ts) and on its own:
 * `npx tsx scripts/check-repository.ts [dir]` prints each problem and exits 1 when there is one.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface RepositoryProblem {
  readonly path: string;
  readonly why: 'ignored' | 'private key';
}

const PEM_PRIVATE_KEY = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----/;
/** A JSON object naming a key type and a private member, in either order, within one object. */
const JWK_PRIVATE = /"kty"\s*:\s*"[A-Za-z-]+"[^{}]*"d"\s*:\s*"|"d"\s*:\s*"[^{}]*"kty"\s*:\s*"[A-Za-z-]+"/;

function git(dir: string, args: readonly string[]): string[] {
  const out = execFileSync('git', ['-C', dir, ...args, '-z'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return out.split('\0').filter((path) => path !== '');
}

/** Whether a file's bytes hold private key material (read as Latin-1, so binary files are scanned too). */
export function holdsPrivateKey(bytes: Buffer): boolean {
  const text = bytes.toString('latin1');
  return PEM_PRIVATE_KEY.test(text) || JWK_PRIVATE.test(text);
}

/** Every tracked file of the repository at `dir` that its .gitignore excludes or that holds a private key. */
export function repositoryProblems(dir: string): RepositoryProblem[] {
  const ignored = git(dir, ['ls-files', '--cached', '--ignored', '--exclude-standard']);
  const tracked = git(dir, ['ls-files', '--cached']);
  const keys = tracked.filter((path) => {
    try {
      return holdsPrivateKey(readFileSync(join(dir, path)));
    } catch {
      return false; // deleted in the work tree but not yet in the index: nothing to read
    }
  });
  return [...ignored.map((path) => ({ path, why: 'ignored' as const })), ...keys.map((path) => ({ path, why: 'private key' as const }))];
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const problems = repositoryProblems(resolve(process.argv[2] ?? '.'));
  for (const { path, why } of problems) console.error(`${why}: ${path}`);
  process.exit(problems.length === 0 ? 0 : 1);
}
