/**
 * Builds the static site: the files of `portal-site/` (its TypeScript sources under `src/` left
 * out) plus the portal's client script, bundled with the local esbuild into
 * `clients/portal/portal.js`. The stack deploys the result and the local gateway serves it.
 *
 * Several processes may build at once (tests, `npm start`, `cdk synth`): each file is written to a
 * temporary name and renamed over the old one, and the output is the same whoever builds it.
 */
import { buildSync } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { REPO_ROOT } from './bundle';

export const SITE_SOURCE = join(REPO_ROOT, 'portal-site');
export const SITE_BUILD = join(REPO_ROOT, 'dist', 'portal-site');
/** The portal client: source entry and where its bundle goes in the site. */
export const PORTAL_SCRIPT = { entry: join(SITE_SOURCE, 'src', 'portal.ts'), out: 'clients/portal/portal.js' };

function staticFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (path === join(SITE_SOURCE, 'src')) continue;
    if (statSync(path).isDirectory()) out.push(...staticFiles(path));
    else out.push(path);
  }
  return out;
}

/** The site's files in memory: relative path (with `/`) to content. */
export function portalSiteFiles(): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  for (const file of staticFiles(SITE_SOURCE)) files.set(relative(SITE_SOURCE, file).split(sep).join('/'), readFileSync(file));
  const built = buildSync({
    entryPoints: [PORTAL_SCRIPT.entry],
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'esm',
    target: ['es2022'],
    minify: true,
    legalComments: 'none',
    // fhirclient's polyfills (cross-fetch, AbortController) are not needed in current browsers.
    define: { FHIRCLIENT_PURE: 'true' },
    logLevel: 'silent',
  });
  files.set(PORTAL_SCRIPT.out, built.outputFiles[0]!.contents);
  return files;
}

/** Writes the site into `outDir` (default `dist/portal-site/`) and returns that folder. */
export function buildPortalSite(outDir = SITE_BUILD): string {
  const files = portalSiteFiles();
  for (const [path, content] of files) {
    const target = join(outDir, path);
    mkdirSync(dirname(target), { recursive: true });
    const temporary = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    writeFileSync(temporary, content);
    renameSync(temporary, target);
  }
  // Files of an earlier build that the sources no longer have.
  const wanted = new Set([...files.keys()].map((p) => join(outDir, p)));
  const sweep = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (path.endsWith('.tmp') || wanted.has(path)) continue;
      if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) sweep(path);
      else rmSync(path, { force: true });
    }
  };
  sweep(outDir);
  return outDir;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`built ${buildPortalSite()}`);
}
