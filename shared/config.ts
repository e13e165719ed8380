/**
 * Runtime settings, read from the environment once per process.
 *
 * The same variables are set by the CDK stack on each Lambda and by the local runtime before it
 * loads a handler, so the handler code never knows where it runs.
 */

/** The observations table's name after the prefix; the layout's version is part of it (`shared/store/tables.ts`). */
export const OBSERVATIONS_TABLE_NAME = 'observations-v3';

export interface Config {
  /** Prefix of every table and bucket name; lets tests and side-by-side instances share one engine. */
  readonly resourcePrefix: string;
  readonly observationsTable: string;
  readonly auxTable: string;
  readonly directoryTable: string;
  /** The hospital directory of the portal's picker (docs/store.md#the-brands-directory). */
  readonly brandsTable: string;
  readonly auxBucket: string;
  /** Public origin of the service (scheme://host[:port]), used in links, invitations and token issuer. */
  readonly siteUrl: string;
  /**
   * The URI under which the service names what is its own (the native source, the FHIR Source
   * prefix, the model code system). Stored resources carry these URIs, so a deployment chooses it
   * once and never changes it (see `shared/fhir/constants.ts`).
   */
  readonly namespace: string;
  /** Largest request body accepted, in bytes (API Gateway allows 10 MB, Lambda 6 MB). */
  readonly maxBodyBytes: number;
  /** Deepest nesting of objects and lists a JSON body may have (400 beyond it). */
  readonly maxJsonDepth: number;
  /** Entries a batch upload or an import Bundle may carry (413 beyond it). */
  readonly maxBundleEntries: number;
  /** Largest page a search (`_count`) or an `/api/v1/` list (`page_size`) serves; larger asks are clamped. */
  readonly maxPageSize: number;
  /** Per-caller request rate of the local gateway's token bucket (API Gateway throttles on AWS); 0 turns it off. */
  readonly rateLimit: { readonly perSecond: number; readonly burst: number };
  readonly logLevel: string;
  readonly release: string;
  /** Local data folder (local runtime and tests): holds the local token signing key under `keys/`. */
  readonly dataDir: string | undefined;
  /** KMS key (id or ARN) that signs access tokens on AWS; unset locally. */
  readonly signingKeyId: string | undefined;
  /** Earlier KMS signing keys whose tokens are still accepted during a rotation (comma list). */
  readonly previousSigningKeyIds: readonly string[];
  /**
   * Whether a backend client's `jwks_uri` may be plain http on this machine's loopback (local tests
   * of the fetch); otherwise only https to a public address (docs/access.md#backend-services-smart).
   */
  readonly jwksUriLoopback: boolean;
  /**
   * Client registrations (RFC 7591, docs/access.md#assistants-clients) accepted per hour from one
   * source address and from everyone together; more are answered 429.
   */
  readonly registrationLimits: { readonly perAddressPerHour: number; readonly perHour: number };
  /** Bulk export (`$export`, docs/export.md): where jobs and files live, and their limits. */
  readonly exports: ExportSettings;
  /**
   * Origins a browser page may call `/mcp` from (`MCP_ALLOWED_ORIGINS`, comma list): a request with
   * any other `Origin` is a 403 (the MCP transport's DNS-rebinding rule); none by default. A
   * request without `Origin` (a desktop client, a CLI) is not a browser's and passes.
   */
  readonly mcpAllowedOrigins: readonly string[];
  /**
   * Requests one OAuth client may send `/mcp` per user and minute (`MCP_RATE_LIMIT_PER_MINUTE`,
   * fixed windows shared by every instance; 429 beyond); 0 turns it off.
   */
  readonly mcpRateLimitPerMinute: number;
}

export interface ExportSettings {
  readonly table: string;
  readonly bucket: string;
  /** The SQS queue feeding the worker (AWS); unset locally, where `npm start` runs the worker itself. */
  readonly queueUrl: string | undefined;
  /** Jobs one caller may have running at once (429 beyond). */
  readonly maxJobsPerCaller: number;
  /** A file is closed and the next one begun before it would grow past this many bytes. */
  readonly fileMaxBytes: number;
  /** How long a finished job's manifest and files stay, in hours. */
  readonly expiryHours: number;
  /** Patients one part of a job exports (one worker run). */
  readonly patientsPerPart: number;
  /** A running job with no progress for this long is marked failed (seconds). */
  readonly stuckAfterSeconds: number;
  /** The `Retry-After` of an answer to a running job's status (seconds). */
  readonly retryAfterSeconds: number;
  /** Parts the local runtime's worker runs at once. */
  readonly localWorkers: number;
}

/** The local runtime's and the tests' namespace: a documentation domain (RFC 2606); the stack always sets its own. */
export const LOCAL_NAMESPACE = 'https://cdx.example.org/fhir';
const DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024;
/** Far deeper than any FHIR resource or management body (the standard's examples nest at most 16). */
const DEFAULT_MAX_JSON_DEPTH = 100;
/** A device's day of minute readings in two requests; about 4 MB of readings, under the body limit. */
const DEFAULT_MAX_BUNDLE_ENTRIES = 1000;
const DEFAULT_MAX_PAGE_SIZE = 1000;
/** Far above a device's or a notebook's pace; a runaway client meets it within a second. */
const DEFAULT_RATE_PER_SECOND = 100;
const DEFAULT_RATE_BURST = 200;
/** Twice a minute's work of a busy assistant (a question takes a few tool calls); a loop meets it within a minute. */
const DEFAULT_MCP_RATE_PER_MINUTE = 120;
/** A few pipelines of one caller at once; more is a runaway loop. */
const DEFAULT_EXPORT_JOBS = 3;
/** 100 MiB: a few hundred thousand readings a file, read by pandas in one go. */
const DEFAULT_EXPORT_FILE_BYTES = 100 * 1024 * 1024;
const DEFAULT_EXPORT_EXPIRY_HOURS = 24;
const DEFAULT_EXPORT_PATIENTS_PER_PART = 5;
/** Four times the worker's 15-minute limit: a part that crashed is retried once before this. */
const DEFAULT_EXPORT_STUCK_SECONDS = 3600;
const DEFAULT_EXPORT_RETRY_AFTER = 5;

function positiveInt(raw: string | undefined, fallback: number): number {
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** Like `positiveInt`, but `0` is a value (off). */
function countOrOff(raw: string | undefined, fallback: number): number {
  return raw?.trim() === '0' ? 0 : positiveInt(raw, fallback);
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const prefix = env.RESOURCE_PREFIX ?? 'cdx-';
  return {
    resourcePrefix: prefix,
    observationsTable: env.OBSERVATIONS_TABLE ?? `${prefix}${OBSERVATIONS_TABLE_NAME}`,
    auxTable: env.AUX_TABLE ?? `${prefix}aux`,
    directoryTable: env.DIRECTORY_TABLE ?? `${prefix}directory`,
    brandsTable: env.BRANDS_TABLE ?? `${prefix}brands`,
    auxBucket: env.AUX_BUCKET ?? `${prefix}aux-bodies`,
    siteUrl: (env.SITE_URL ?? 'http://localhost:8000').replace(/\/+$/, ''),
    namespace: (env.SERVICE_NAMESPACE || LOCAL_NAMESPACE).replace(/\/+$/, ''),
    maxBodyBytes: positiveInt(env.MAX_BODY_BYTES, DEFAULT_MAX_BODY_BYTES),
    maxJsonDepth: positiveInt(env.MAX_JSON_DEPTH, DEFAULT_MAX_JSON_DEPTH),
    maxBundleEntries: positiveInt(env.MAX_BUNDLE_ENTRIES, DEFAULT_MAX_BUNDLE_ENTRIES),
    maxPageSize: positiveInt(env.MAX_PAGE_SIZE, DEFAULT_MAX_PAGE_SIZE),
    rateLimit: {
      perSecond: countOrOff(env.RATE_LIMIT_PER_SECOND, DEFAULT_RATE_PER_SECOND),
      burst: positiveInt(env.RATE_LIMIT_BURST, DEFAULT_RATE_BURST),
    },
    logLevel: env.LOG_LEVEL ?? 'info',
    release: env.RELEASE ?? '0.1.0',
    dataDir: env.DATA_DIR || undefined,
    signingKeyId: env.TOKEN_SIGNING_KEY_ID || undefined,
    previousSigningKeyIds: (env.TOKEN_PREVIOUS_SIGNING_KEY_IDS ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    jwksUriLoopback: env.JWKS_URI_LOOPBACK === '1',
    registrationLimits: {
      perAddressPerHour: positiveInt(env.REGISTRATIONS_PER_ADDRESS_PER_HOUR, 20),
      perHour: positiveInt(env.REGISTRATIONS_PER_HOUR, 500),
    },
    mcpAllowedOrigins: (env.MCP_ALLOWED_ORIGINS ?? '')
      .split(',')
      .map((s) => s.trim().replace(/\/+$/, ''))
      .filter(Boolean),
    mcpRateLimitPerMinute: countOrOff(env.MCP_RATE_LIMIT_PER_MINUTE, DEFAULT_MCP_RATE_PER_MINUTE),
    exports: {
      table: env.EXPORTS_TABLE ?? `${prefix}exports`,
      bucket: env.EXPORT_BUCKET ?? `${prefix}exports`,
      queueUrl: env.EXPORT_QUEUE_URL || undefined,
      maxJobsPerCaller: positiveInt(env.EXPORT_MAX_JOBS, DEFAULT_EXPORT_JOBS),
      fileMaxBytes: positiveInt(env.EXPORT_FILE_MAX_BYTES, DEFAULT_EXPORT_FILE_BYTES),
      expiryHours: positiveInt(env.EXPORT_EXPIRY_HOURS, DEFAULT_EXPORT_EXPIRY_HOURS),
      patientsPerPart: positiveInt(env.EXPORT_PATIENTS_PER_PART, DEFAULT_EXPORT_PATIENTS_PER_PART),
      stuckAfterSeconds: positiveInt(env.EXPORT_STUCK_AFTER_SECONDS, DEFAULT_EXPORT_STUCK_SECONDS),
      retryAfterSeconds: positiveInt(env.EXPORT_RETRY_AFTER_SECONDS, DEFAULT_EXPORT_RETRY_AFTER),
      localWorkers: positiveInt(env.EXPORT_LOCAL_WORKERS, 2),
    },
  };
}

let cached: Config | undefined;

/** The process's settings; read lazily so a test can set the environment before first use. */
export function config(): Config {
  cached ??= readConfig();
  return cached;
}

/** Forget the cached settings (tests and the local runtime change the environment between uses). */
export function resetConfig(): void {
  cached = undefined;
}
