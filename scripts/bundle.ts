/**
 * Bundles each endpoint family into `dist/functions/<family>/index.mjs` with the local esbuild
 * (never Docker). The CDK stack deploys exactly these folders and the cold-start benchmark
 * imports exactly these files. `npm run bundle` runs it alone.
 */
import { buildSync, type BuildOptions } from 'esbuild';
import { cpSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAMILIES, type Family } from '../shared/http/families';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const BUNDLE_ROOT = join(REPO_ROOT, 'dist', 'functions');

/** Folders of data a family reads at run time, copied beside its bundle (path in repo -> path in bundle dir). */
export const FAMILY_ASSETS: Record<Family, ReadonlyArray<{ from: string; to: string }>> = {
  fhir: [],
  'fhir-import': [],
  api: [],
  oauth: [],
};

export const BUNDLE_OPTIONS: BuildOptions = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  minify: true,
  sourcemap: 'external',
  legalComments: 'external',
  mainFields: ['module', 'main'],
  // Some CommonJS dependencies call require(); ESM bundles need it defined.
  banner: {
    js: "import { createRequire as __cdxCreateRequire } from 'node:module'; const require = __cdxCreateRequire(import.meta.url);",
  },
  logLevel: 'error',
  // Clients used only on AWS, loaded lazily (the signing key in KMS, the site URL in SSM), come
  // from the SDK the Lambda runtime includes instead of adding 300 KB to every bundle.
  external: ['@aws-sdk/client-kms', '@aws-sdk/client-ssm'],
};

export interface BundleResult {
  family: Family;
  dir: string;
  file: string;
  bytes: number;
}

export function bundleFamily(family: Family, outRoot = BUNDLE_ROOT): BundleResult {
  const dir = join(outRoot, family);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'index.mjs');
  buildSync({ ...BUNDLE_OPTIONS, entryPoints: [join(REPO_ROOT, 'functions', family, 'handler.ts')], outfile: file });
  for (const asset of FAMILY_ASSETS[family]) {
    const from = join(REPO_ROOT, asset.from);
    if (existsSync(from)) cpSync(from, join(dir, asset.to), { recursive: true });
  }
  return { family, dir, file, bytes: statSync(file).size };
}

export function bundleAll(outRoot = BUNDLE_ROOT): BundleResult[] {
  return FAMILIES.map((family) => bundleFamily(family, outRoot));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const r of bundleAll()) console.log(`${r.family.padEnd(12)} ${(r.bytes / 1024).toFixed(0).padStart(6)} KB  ${r.file}`);
}
