/**
 * Bundles each endpoint family, and the export worker, into `dist/functions/<name>/index.mjs` with
 * the local esbuild (never Docker). The CDK stack deploys exactly these folders and the cold-start benchmark
 * imports exactly these files. `npm run bundle` runs it alone.
 */
import { buildSync, type BuildOptions } from 'esbuild';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUNDLED_DEFINITIONS_DIR } from '../shared/fhir/definitions/location';
import { FAMILIES } from '../shared/http/families';
import { BUNDLED_CONVERSION_DIR } from '../shared/r4-import/location';
import { EXPORT_WORKER } from '../shared/telemetry/names';

/** Every Lambda's bundle: the endpoint families and the export worker (functions/<name>/handler.ts). */
export const BUNDLES = [...FAMILIES, EXPORT_WORKER] as const;
export type BundleName = (typeof BUNDLES)[number];

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const BUNDLE_ROOT = join(REPO_ROOT, 'dist', 'functions');

/** The compiled R5 definitions, read type by type on first use (shared/fhir/definitions). */
const FHIR_R5_DEFINITIONS = { from: 'shared/fhir/definitions/generated', to: BUNDLED_DEFINITIONS_DIR };

/** The compiled R4 -> R5 conversion tables, read type by type on first use (shared/r4-import). */
const R4_CONVERSION_TABLES = { from: 'shared/r4-import/generated', to: BUNDLED_CONVERSION_DIR };

/** Folders of data a family reads at run time, copied beside its bundle (path in repo -> path in bundle dir). */
export const FAMILY_ASSETS: Record<BundleName, ReadonlyArray<{ from: string; to: string }>> = {
  fhir: [FHIR_R5_DEFINITIONS],
  'fhir-import': [FHIR_R5_DEFINITIONS, R4_CONVERSION_TABLES],
  api: [],
  oauth: [],
  // The tools search readings as the FHIR API does, with the R5 search parameters.
  mcp: [FHIR_R5_DEFINITIONS],
  // `_typeFilter` criteria are parsed with the R5 search parameters.
  [EXPORT_WORKER]: [FHIR_R5_DEFINITIONS],
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
  // A dynamic import() becomes a chunk loaded on first use, not at cold start (the FHIRPath engine).
  // Chunks sit beside index.mjs, so `import.meta.url` names the same folder in every chunk.
  splitting: true,
  entryNames: 'index',
  chunkNames: '[name]-[hash]',
  outExtension: { '.js': '.mjs' },
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
  family: BundleName;
  dir: string;
  file: string;
  /** Code a cold start loads: index.mjs and the chunks it imports statically. */
  bytes: number;
  /** Chunks loaded only on first use (dynamic imports). */
  lazyBytes: number;
}

export function bundleFamily(family: BundleName, outRoot = BUNDLE_ROOT): BundleResult {
  const built = bundleEntry(join(REPO_ROOT, 'functions', family, 'handler.ts'), join(outRoot, family), FAMILY_ASSETS[family]);
  return { family, ...built };
}

/** Bundles one entry into `dir` (index.mjs + chunks) with the Lambda options and copies its assets. */
export function bundleEntry(entry: string, dir: string, assets: ReadonlyArray<{ from: string; to: string }>) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const { metafile } = buildSync({ ...BUNDLE_OPTIONS, entryPoints: [entry], outdir: dir, metafile: true });
  for (const asset of assets) {
    const from = join(REPO_ROOT, asset.from);
    if (existsSync(from)) cpSync(from, join(dir, asset.to), { recursive: true });
  }
  const file = join(dir, 'index.mjs');
  const outputs = metafile!.outputs;
  const key = (path: string) => resolve(REPO_ROOT, path);
  const eager = new Set<string>();
  const visit = (path: string) => {
    if (eager.has(path)) return;
    eager.add(path);
    for (const imp of outputs[path]?.imports ?? []) if (imp.kind === 'import-statement' && outputs[imp.path]) visit(imp.path);
  };
  visit(Object.keys(outputs).find((p) => key(p) === file)!);
  const sizes = Object.entries(outputs).filter(([p]) => p.endsWith('.mjs'));
  const bytes = sizes.filter(([p]) => eager.has(p)).reduce((n, [, o]) => n + o.bytes, 0);
  const lazyBytes = sizes.filter(([p]) => !eager.has(p)).reduce((n, [, o]) => n + o.bytes, 0);
  return { dir, file, bytes, lazyBytes };
}

export function bundleAll(outRoot = BUNDLE_ROOT): BundleResult[] {
  return BUNDLES.map((family) => bundleFamily(family, outRoot));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const r of bundleAll()) {
    const lazy = r.lazyBytes > 0 ? ` (+ ${(r.lazyBytes / 1024).toFixed(0)} KB loaded on first use)` : '';
    console.log(`${r.family.padEnd(14)} ${(r.bytes / 1024).toFixed(0).padStart(6)} KB  ${r.file}${lazy}`);
  }
}
