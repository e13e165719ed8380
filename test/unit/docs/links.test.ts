/**
 * The README is a front door to docs/: every relative link in README.md and docs/*.md must reach a
 * file that exists and, when it names a heading (`#anchor`), a heading of that file, so moving a
 * section cannot silently break a reader's way to it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../local/runtime';

/** Markdown text without fenced code blocks, whose `#` lines are shell comments, not headings. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, each space a hyphen. */
function slug(heading: string): string {
  const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a markdown file's headings, with GitHub's `-1`, `-2` suffixes for repeats. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of withoutFences(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(heading!);
    const repeats = seen.get(base) ?? 0;
    seen.set(base, repeats + 1);
    anchors.add(repeats === 0 ? base : `${base}-${repeats}`);
  }
  return anchors;
}

/** Link targets that stay inside the repository (no scheme), outside code. */
function relativeLinks(markdown: string): string[] {
  const prose = withoutFences(markdown).replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map(([, target]) => target!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** Every broken link of one markdown file, as `file: target (why)`. */
function brokenLinks(file: string, markdown: string, read: (path: string) => string | undefined): string[] {
  const broken: string[] = [];
  for (const target of relativeLinks(markdown)) {
    const [path, anchor] = target.split('#', 2) as [string, string | undefined];
    const destination = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
    const text = read(destination);
    const name = relative(REPO_ROOT, file);
    if (text === undefined) broken.push(`${name}: ${target} (no such file)`);
    else if (anchor !== undefined && anchor !== '' && destination.endsWith('.md') && !anchorsOf(text).has(anchor)) {
      broken.push(`${name}: ${target} (no such heading)`);
    }
  }
  return broken;
}

function readIfPresent(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  return path.endsWith('.md') ? readFileSync(path, 'utf8') : '';
}

const docsDir = join(REPO_ROOT, 'docs');
const pages = [join(REPO_ROOT, 'README.md'), ...readdirSync(docsDir).filter((f) => f.endsWith('.md')).map((f) => join(docsDir, f))];

describe('links between README.md and docs/', () => {
  it('every relative link reaches an existing file and heading', () => {
    const broken = pages.flatMap((page) => brokenLinks(page, readFileSync(page, 'utf8'), readIfPresent));
    expect(broken).toEqual([]);
  });

  it('the README links to every page of docs/', () => {
    const linked = new Set(relativeLinks(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')).map((t) => t.split('#')[0]));
    const unlinked = pages.slice(1).map((p) => relative(REPO_ROOT, p)).filter((p) => !linked.has(p));
    expect(unlinked).toEqual([]);
  });

  it('finds a missing file, a missing heading and a heading only a code block has', () => {
    const files = new Map([
      ['/r/docs/a.md', '# A\n\n## Two words (`code`)\n\n```sh\n# not a heading\n```\n'],
    ]);
    const markdown = [
      '[ok](docs/a.md#two-words-code)',
      '[gone](docs/missing.md)',
      '[typo](docs/a.md#two-word)',
      '[fenced](docs/a.md#not-a-heading)',
      '[web](https://example.org/x.md)',
      '`[in code](nowhere.md)`',
    ].join('\n');
    const broken = brokenLinks('/r/README.md', markdown, (p) => files.get(p));
    expect(broken.map((b) => b.replace(/^.*?: /, ''))).toEqual([
      'docs/missing.md (no such file)',
      'docs/a.md#two-word (no such heading)',
      'docs/a.md#not-a-heading (no such heading)',
    ]);
  });

  it('numbers repeated headings as GitHub does', () => {
    expect([...anchorsOf('## Search\n### Search\n## Search')]).toEqual(['search', 'search-1', 'search-2']);
  });
});

/** Every source file of the product, its tools and its tests (generated code aside). */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' || entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|mjs|js)$/.test(entry.name) ? [path] : [];
  });
}

describe("the code's references to docs/", () => {
  const files = ['shared', 'functions', 'lib', 'local', 'scripts', 'portal-site', 'test', 'bench'].flatMap((dir) => sourceFiles(join(REPO_ROOT, dir)));

  it('every `docs/<page>.md#<anchor>` a comment or message cites names a heading that exists', () => {
    const broken = files.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\bdocs\/([\w-]+\.md)#([\w-]+)/g)].flatMap(([cited, page, anchor]) => {
        const text = readIfPresent(join(docsDir, page!));
        return text !== undefined && anchorsOf(text).has(anchor!) ? [] : [`${relative(REPO_ROOT, file)}: ${cited}`];
      }),
    );
    // This file's own examples of broken links aside.
    expect(broken.filter((b) => !b.startsWith('test/unit/docs/links.test.ts: docs/a.md'))).toEqual([]);
  });

  it('every path of the repository a comment, message or page names exists', () => {
    // The planted files of the linter's test and this file's own broken examples are not meant to exist.
    const examples = ['test/unit/eslint.config.test.ts', 'test/unit/docs/links.test.ts'];
    const named = /\b(?:shared|functions|lib|local|scripts|test|bench|portal-site|docs)\/[\w./-]*[\w-]\.(?:ts|mjs|md|json|js|html|css)\b/g;
    const missing = [...files.filter((file) => !examples.includes(relative(REPO_ROOT, file))), ...pages].flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(named)].flatMap(([path]) => (existsSync(join(REPO_ROOT, path!)) ? [] : [`${relative(REPO_ROOT, file)}: ${path}`])),
    );
    expect(missing).toEqual([]);
  });

  it("cites the project's own docs, never the numbered sections of a contract a clone does not have", () => {
    const citing = [...files, ...pages].filter((file) => /\bspec \d/.test(readFileSync(file, 'utf8'))).map((file) => relative(REPO_ROOT, file));
    expect(citing).toEqual([]);
    expect(['see spec', '4.4'].join(' ')).toMatch(/\bspec \d/);
  });
});
