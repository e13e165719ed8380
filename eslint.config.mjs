/**
 * The linter: import cycles, the layering of the code (docs/layout.md) and a few correctness rules.
 * Style is left to review: no rule here exists only to reformat code.
 */
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * Platform code in shared/: what every family stands on, knowing no domain. The FHIR core (the R5
 * model, FHIRPath, validation, search, Bundles, OperationOutcome, the FHIR router) is platform; the
 * read-only FHIR resources made from directory entities (shared/fhir/projections) are domain.
 */
export const PLATFORM = [
  'shared/store/**',
  'shared/http/**',
  'shared/telemetry/**',
  'shared/fhir/*.ts',
  'shared/fhir/!(projections)/**',
  'shared/config.ts',
  'shared/failures.ts',
  'shared/bounded-map.ts',
  'shared/json.ts',
  'shared/lists.ts',
  'shared/secrets.ts',
  'shared/shown.ts',
];
/**
 * Domain code in shared/: one folder per kind of thing the service keeps or does, bottom first. A
 * folder imports only the folders before it, so no two folders import each other, however
 * indirectly (a folder cycle makes neither understandable alone). When a folder needs a fact of one
 * after it, the fact moves down to where both can reach it (as `shared/auth/claims.ts`: what a
 * token's claims say, for the OAuth code that issues tokens and the authenticator that reads them).
 */
export const DOMAIN_ORDER = [
  'shared/directory',
  'shared/brands',
  'shared/omh',
  'shared/portal',
  'shared/auth',
  'shared/oauth',
  'shared/api',
  'shared/fhir/projections',
  'shared/auxiliary',
  'shared/observations',
  'shared/r4-import',
  'shared/export',
  'shared/management',
  'shared/mcp',
];
/** Domain folders apart from authentication, which platform code may name the caller type of. */
const DOMAIN = DOMAIN_ORDER.filter((folder) => folder !== 'shared/auth');
/**
 * Wiring: the set of store ports built from every domain's adapters (on DynamoDB and S3, and on the
 * in-memory twins for tests), above every folder of shared/.
 */
export const WIRING = ['shared/stores.ts', 'shared/memory-stores.ts'];
/** The Lambda families: each deploys alone, so none imports another. */
const FAMILIES = ['functions/api', 'functions/export-worker', 'functions/fhir', 'functions/fhir-import', 'functions/oauth'];
/** Code that never ships in a Lambda or the stack: the local runtime, tests, benchmarks. */
const DEV_ONLY = ['local', 'test', 'bench'];

export const LAYERS = [
  {
    target: 'shared',
    from: ['functions', 'local', 'lib', 'scripts', 'bench', 'test'],
    message: 'shared/ is the library the entry points use; it imports none of them.',
  },
  {
    target: PLATFORM,
    from: DOMAIN,
    message: 'Platform code (store, http, telemetry, config, FHIR core) imports no domain folder: move the common piece down, or pass it in.',
  },
  {
    // Authentication is domain (it reads the directory) and is passed in where routes are
    // dispatched; only the caller's type, which dispatch hands to handlers, is platform's to name.
    target: PLATFORM,
    from: 'shared/auth',
    except: ['./caller.ts'],
    message: 'Platform code names only the caller type (shared/auth/caller.ts); the authenticator is passed in (createHandler).',
  },
  {
    // A request is authenticated once, by shared/http/dispatch.ts from the route's declared access,
    // with the authenticator each family's handler.ts passes in: no other code of the service looks
    // for a request's caller (test/security/authentication-imports.test.ts plants one that does).
    target: ['shared/**', 'functions/*/!(handler).ts', 'functions/*/*/**', 'lib/**', 'scripts/**'],
    from: 'shared/auth/authenticate.ts',
    message: "Only a family's handler.ts imports the authenticator (createHandler); a route declares what it needs (`auth`) and its handler gets `req.caller`.",
  },
  ...DOMAIN_ORDER.slice(0, -1).map((folder, i) => ({
    target: folder,
    from: DOMAIN_ORDER.slice(i + 1),
    message: `${folder} imports only the domain folders before it in DOMAIN_ORDER (eslint.config.mjs, docs/layout.md), so folders never import each other: move the fact both need down.`,
  })),
  {
    // The set of stores is built from every domain's adapters: a file of shared/ that imported it
    // would import its own adapter back, and every other domain's. Top-level files included.
    target: ['shared/*/**', 'shared/!(stores|memory-stores).ts'],
    from: WIRING,
    message: 'Only the handlers (functions/), local/ and the tests choose the stores; domain code reaches its store through its port (store/current.ts).',
  },
  {
    target: ['shared/stores.ts', 'functions', 'lib', 'scripts'],
    from: 'shared/memory-stores.ts',
    message: 'The in-memory twins are for local/ and the tests; deployed code is built on shared/stores.ts.',
  },
  { target: 'functions', from: [...DEV_ONLY, 'lib', 'scripts'], message: 'Lambda code imports only what is deployed with it.' },
  { target: ['lib', 'scripts'], from: DEV_ONLY, message: 'The stack and its build import nothing of the local runtime, the tests or the benchmarks.' },
  ...FAMILIES.map((family) => ({
    target: family,
    from: FAMILIES.filter((other) => other !== family),
    message: 'A Lambda family imports no other family: share through shared/.',
  })),
];

/**
 * Storage behind the ports (docs/layout.md#storage-behind-the-ports): the AWS SDK is imported only by
 * the store adapters (`shared/<domain>/store/`, `shared/store/`) and by the named adapters of the
 * other AWS services the code stands on; the local runtime, the stack, scripts, tests and benchmarks
 * are wiring and may use it too. A domain file reaches its store through the port and the current
 * adapter (`store/port.ts`, `store/current.ts`), never an adapter itself.
 */
const AWS_SDK_ALLOWED = [
  'shared/store/**',
  'shared/*/store/**',
];
const AWS_SDK_MESSAGE = 'The AWS SDK belongs to the store adapters (shared/<domain>/store/, shared/store/): reach the store through its port.';
const AWS_SDK_IMPORT = { group: ['@aws-sdk/*'], message: AWS_SDK_MESSAGE };
const AWS_SDK_DYNAMIC_IMPORT = { selector: 'ImportExpression[source.value=/^@aws-sdk\\u002F/]', message: AWS_SDK_MESSAGE };
const STORE_ZONES = [
  {
    target: ['shared/*/!(store)/**', 'shared/*/*.ts'],
    from: ['shared/*/store/{dynamo,memory,s3,sqs}*'],
    message: 'A domain file reaches its store through the port and the current adapter (store/port.ts, store/current.ts), never an adapter.',
  },
  // A table two domains share (the directory table) is the platform's (shared/store/directory-*.ts).
  ...['auxiliary', 'brands', 'directory', 'export', 'mcp', 'oauth', 'observations'].map((domain) => ({
    target: `shared/${domain}/store/**`,
    from: [`shared/!(${domain})/store/**`],
    message: "A store adapter builds on the platform's store (shared/store/), never on another domain's store folder.",
  })),
];

/**
 * The assistants' tools (docs/mcp.md#how-the-tools-reach-the-domain) call the domain's typed
 * functions: a typed query in, typed rows and an opaque cursor out. None builds a FHIR query string
 * for a FHIR parser to read back, nor a URL against a made-up site whose links it then reads for a
 * cursor: the FHIR parsers and the URL-taking searches are the HTTP edge's.
 */
const MCP_TYPED_MESSAGE = 'The assistants\' tools call the typed domain functions (shared/observations/series.ts, readingStatistics, findAuxiliary), never a FHIR query string or URL.';
const MCP_TYPED_IMPORTS = [
  { group: ['**/observations/search/query'], importNames: ['parseNativeQuery'], message: MCP_TYPED_MESSAGE },
  { group: ['**/observations/stats/params'], importNames: ['parseStatsRequest'], message: MCP_TYPED_MESSAGE },
  { group: ['**/observations/lastn'], importNames: ['parseLastn'], message: MCP_TYPED_MESSAGE },
  { group: ['**/observations/search/execute'], importNames: ['searchObservations', 'countByCode'], message: MCP_TYPED_MESSAGE },
  { group: ['**/auxiliary/search', '**/auxiliary/search/index'], importNames: ['searchAuxiliary'], message: MCP_TYPED_MESSAGE },
];
/** The files of the `/mcp` endpoint itself (the HTTP edge of the tools, shared/mcp/http.ts's chunk and its rate limit). */
const MCP_ENDPOINT = ['shared/mcp/http.ts', 'shared/mcp/exchange.ts', 'shared/mcp/rate-limit.ts'];
const MCP_TYPED_SYNTAX = [
  { selector: "NewExpression[callee.name='URLSearchParams']", message: MCP_TYPED_MESSAGE },
  { selector: "NewExpression[callee.name='URL']", message: MCP_TYPED_MESSAGE },
];

export default defineConfig(
  globalIgnores([
    'node_modules/',
    'dist/',
    'cdk.out*/',
    '.data/',
    '.test-data/',
    'coverage/',
    'test-results/',
    '.scratch/',
    // Generated code (compiled FHIR definitions, written by scripts/ and checked up to date by tests).
    '**/generated/',
  ]),
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.mjs'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver()],
    },
    rules: {
      // Any cycle, dynamic imports included: a cycle makes load order matter and layering meaningless.
      // Packages are not walked (ignoreExternal): they cannot import us back, and walking them is slow.
      'import-x/no-cycle': ['error', { maxDepth: Infinity, ignoreExternal: true, allowUnsafeDynamicCyclicDependency: false }],
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: [...LAYERS, ...STORE_ZONES] }],
      'import-x/no-self-import': 'error',
      // `any` marks the edges where values are untyped (parsed JSON, test doubles); review keeps it there.
      '@typescript-eslint/no-explicit-any': 'off',
      // Inputs are checked for control characters on purpose.
      'no-control-regex': 'off',
      // `_name` is how the code drops a field from a copy (`const { pk: _pk, ...rest } = row`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['shared/**/*.ts', 'functions/**/*.ts'],
    ignores: AWS_SDK_ALLOWED,
    rules: {
      'no-restricted-imports': ['error', { patterns: [AWS_SDK_IMPORT] }],
      'no-restricted-syntax': ['error', AWS_SDK_DYNAMIC_IMPORT],
    },
  },
  {
    // The tools and what they stand on; not the endpoint's HTTP files, which read requests (an
    // Origin, the site URL) as every route does. The rules' options replace those of the block
    // above for these files: the AWS SDK's stay.
    files: ['shared/mcp/**/*.ts'],
    ignores: [...AWS_SDK_ALLOWED, ...MCP_ENDPOINT],
    rules: {
      'no-restricted-imports': ['error', { patterns: [AWS_SDK_IMPORT, ...MCP_TYPED_IMPORTS] }],
      'no-restricted-syntax': ['error', AWS_SDK_DYNAMIC_IMPORT, ...MCP_TYPED_SYNTAX],
    },
  },
  {
    // The static site's plain browser script: its globals (document, crypto, ...) are the browser's.
    files: ['portal-site/**/*.js'],
    languageOptions: { sourceType: 'script' },
    rules: { 'no-undef': 'off' },
  },
);
