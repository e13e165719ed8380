/**
 * The Python examples of docs/, and a Python with a current pandas (3.x) and requests to run them:
 * a virtual environment under node_modules/.cache, made on first use with pip (about 15 s) and
 * reused after. Without python3 or pip it is undefined: the test that needs it then skips, except
 * under CI=true, where it fails (as the template lint does without cfn-lint).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../local/runtime';

export interface PythonExample {
  /** Where a reader finds it: the page and the heading above it. */
  readonly name: string;
  readonly code: string;
}

const VENV = join(REPO_ROOT, 'node_modules', '.cache', 'docs-python');
const PYTHON = join(VENV, 'bin', 'python');
/** What the examples are written for: the pandas a researcher installs today. */
const REQUIREMENTS = ['pandas>=3,<4', 'requests>=2.32,<3'];

export const pythonRequired = (): boolean => process.env.CI === 'true';

/** Every ```python block of docs/*.md, in page order. */
export function docsPythonExamples(): PythonExample[] {
  const docs = join(REPO_ROOT, 'docs');
  return readdirSync(docs)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .flatMap((page) => {
      const text = readFileSync(join(docs, page), 'utf8');
      return [...text.matchAll(/```python\n([\s\S]*?)```/g)].map((match) => {
        const heading = [...text.slice(0, match.index).matchAll(/^#+ (.+)$/gm)].at(-1)?.[1] ?? page;
        return { name: `docs/${page} "${heading}"`, code: match[1]! };
      });
    });
}

function run(command: string, args: readonly string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.once('error', (error) => done({ code: null, output: String(error) }));
    child.once('close', (code) => done({ code, output }));
  });
}

const ready = async () => existsSync(PYTHON) && (await run(PYTHON, ['-c', 'import pandas, requests, sys; sys.exit(0 if pandas.__version__.startswith("3.") else 1)'])).code === 0;

/** The environment's python, made and filled if it is not yet; `undefined` (with why) when it cannot be. */
export async function pythonWithPandas(): Promise<{ python?: string; why?: string }> {
  if (await ready()) return { python: PYTHON };
  const venv = await run('python3', ['-m', 'venv', '--clear', VENV]);
  if (venv.code !== 0) return { why: `python3 -m venv failed: ${venv.output}` };
  // No retries: an index that cannot be reached is then passed over at once for the others pip knows.
  const pip = await run(join(VENV, 'bin', 'pip'), ['install', '--quiet', '--disable-pip-version-check', '--retries', '0', ...REQUIREMENTS]);
  if (pip.code !== 0 || !(await ready())) return { why: `pip install ${REQUIREMENTS.join(' ')} failed: ${pip.output}` };
  return { python: PYTHON };
}
