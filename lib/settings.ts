/**
 * The deployment's settings: every CDK context value the app reads, parsed and checked in one
 * place, with its default. docs/operations.md lists them for operators; a wrong value stops the
 * synth with a message naming the setting, before anything reaches CloudFormation.
 */
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Node } from 'constructs';
import { FAMILIES, type Family } from '../shared/http/families';
import { portalConfig, type PortalConfig } from '../shared/portal/config';

export interface Settings {
  stackName: string;
  /** Public origin (custom domain) for invitation links and the token issuer. */
  siteUrl?: string;
  /**
   * The URI under which the service names its own things (the native source, FHIR Source URIs, the
   * model code system). Required: stored resources carry it, so it is chosen at the first deployment
   * and never changed after (a change would orphan every stored `meta.source` and `_source` search).
   */
  namespace: string;
  /** Prefix of table names, so several stages can share an account. */
  namePrefix?: string;
  portal: PortalConfig;
  /** Alarm notifications go to this address (a subscription the recipient confirms); unset: topic only. */
  alarmEmail?: string;
  /** Reserved concurrency per family; undefined: none reserved (the account's shared pool). */
  reservedConcurrency?: Record<Family, number>;
  /** The account's Lambda concurrency quota in this region (Service Quotas, L-B99A9384). */
  lambdaConcurrencyQuota: number;
  logRetention: logs.RetentionDays;
  /** ACM certificate (us-east-1) for the host of `siteUrl`: the distribution then requires TLS 1.2. */
  certificateArn?: string;
  /** WAF web ACL (scope CLOUDFRONT, us-east-1) to attach to the distribution. */
  webAclArn?: string;
  /** Requests a second the whole API accepts, and the burst above it. */
  apiThrottle: { rate: number; burst: number };
  /** Token signing key generation: raising it by one rotates the key without logging anyone out. */
  signingKeyGeneration: number;
  /** Bulk export: hours a finished job's files are kept, jobs one caller may run at once. */
  exports: { expiryHours: number; maxJobsPerCaller: number };
  /** Origins a browser page may call `/mcp` from (`MCP_ALLOWED_ORIGINS`); empty: none. */
  mcpAllowedOrigins: string[];
  /** Requests one OAuth client may send `/mcp` per user and minute (`MCP_RATE_LIMIT_PER_MINUTE`); 0: no limit. */
  mcpRateLimitPerMinute: number;
}

/**
 * Reserved concurrency by default. It caps what one family can take from the account's pool (a
 * flood of uploads cannot starve sign-ins, and bounds what a flood costs) and guarantees each its
 * share. `fhir` carries the uploads: 100,000 patients uploading a reading a minute are about 1,700
 * requests a second, about 50 at once at 30 ms each, so 100 leaves twice that. Together 180 of the
 * default account quota of 1,000 (Lambda keeps at least 100 unreserved).
 */
export const DEFAULT_RESERVED_CONCURRENCY: Record<Family, number> = { fhir: 100, 'fhir-import': 20, api: 20, oauth: 20, mcp: 20 };

/** Lambda's default quota of concurrent executions per account and region. */
export const DEFAULT_LAMBDA_CONCURRENCY_QUOTA = 1000;
export const DEFAULT_LOG_RETENTION = logs.RetentionDays.ONE_MONTH;
export const DEFAULT_API_THROTTLE = { rate: 500, burst: 1000 };
/** The export worker's reserved concurrency, when the families reserve theirs: a few large exports at once. */
export const EXPORT_WORKER_CONCURRENCY = 10;
export const DEFAULT_EXPORTS = { expiryHours: 24, maxJobsPerCaller: 3 };
/** The same default as `npm start`'s (shared/config.ts). */
export const DEFAULT_MCP_RATE_LIMIT_PER_MINUTE = 120;

const RETENTION_VALUES = new Set(Object.values(logs.RetentionDays).filter((v): v is number => typeof v === 'number'));

class SettingError extends Error {
  constructor(key: string, value: unknown, expected: string) {
    super(`CDK context '${key}' is ${JSON.stringify(value)}: expected ${expected}.`);
  }
}

/** Context values arrive as strings from `-c key=value` and as JSON values from cdk.json. */
function text(node: Node, key: string): string | undefined {
  const value: unknown = node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  return String(value).trim();
}

function positiveInteger(node: Node, key: string, fallback: number): number {
  const raw = text(node, key);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new SettingError(key, raw, 'a whole number of at least 1');
  return n;
}

/** A whole number of at least 0 (0: off). */
function countOrOff(node: Node, key: string, fallback: number): number {
  const raw = text(node, key);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new SettingError(key, raw, 'a whole number (0 turns it off)');
  return n;
}

function matching(node: Node, key: string, pattern: RegExp, expected: string): string | undefined {
  const raw = text(node, key);
  if (raw !== undefined && !pattern.test(raw)) throw new SettingError(key, raw, expected);
  return raw;
}

/** `none`, one number for every family, or `family=n,...` (the others keep their default). */
function reservedConcurrency(node: Node): Record<Family, number> | undefined {
  const key = 'reservedConcurrency';
  const raw = text(node, key);
  if (raw === undefined) return { ...DEFAULT_RESERVED_CONCURRENCY };
  if (raw === 'none') return undefined;
  const expected = `'none', a whole number for every family, or family=number pairs (${FAMILIES.join(', ')}) separated by commas`;
  if (/^\d+$/.test(raw)) {
    const n = Number(raw);
    if (n < 1) throw new SettingError(key, raw, expected);
    return Object.fromEntries(FAMILIES.map((f) => [f, n])) as Record<Family, number>;
  }
  const result = { ...DEFAULT_RESERVED_CONCURRENCY };
  for (const pair of raw.split(',')) {
    const m = /^\s*([a-z-]+)\s*=\s*(\d+)\s*$/.exec(pair);
    if (!m || !(FAMILIES as readonly string[]).includes(m[1]!) || Number(m[2]) < 1) throw new SettingError(key, raw, expected);
    result[m[1] as Family] = Number(m[2]);
  }
  return result;
}

/** A comma list of http(s) origins (scheme://host[:port], no path), e.g. `https://assistant.example.org`. */
function origins(node: Node, key: string): string[] {
  const raw = text(node, key);
  if (raw === undefined) return [];
  const list = raw.split(',').map((o) => o.trim()).filter(Boolean);
  const origin = /^https?:\/\/[a-z0-9.-]+(:\d+)?$/i;
  if (!list.every((o) => origin.test(o))) throw new SettingError(key, raw, 'http(s) origins (scheme://host[:port], no path) separated by commas');
  return list;
}

function logRetention(node: Node): logs.RetentionDays {
  const raw = text(node, 'logRetentionDays');
  if (raw === undefined) return DEFAULT_LOG_RETENTION;
  const n = Number(raw);
  if (!RETENTION_VALUES.has(n)) throw new SettingError('logRetentionDays', raw, `one of CloudWatch's retention periods (${[...RETENTION_VALUES].join(', ')})`);
  return n as logs.RetentionDays;
}

/** An absolute http(s) URI without query, fragment or trailing slash, e.g. https://fhir.example.org/ns. */
const NAMESPACE_PATTERN = /^https?:\/\/[a-z0-9.-]+(:\d+)?(\/[\w.~%!$&'()*+,;=:@-]+)*$/i;

function namespace(node: Node): string {
  const value = matching(node, 'namespace', NAMESPACE_PATTERN, 'an absolute http(s) URI without a query, fragment or trailing slash, such as https://fhir.example.org/ns');
  if (value === undefined) {
    throw new Error(
      "CDK context 'namespace' is not set: choose the URI under which this deployment names its own data (for example -c namespace=https://fhir.your-organization.org/ns, or in cdk.json), once: stored resources carry it, so it must never change after the first deployment.",
    );
  }
  return value;
}

export function readSettings(node: Node): Settings {
  const siteUrl = matching(node, 'siteUrl', /^https:\/\/[a-z0-9.-]+(:\d+)?\/?$/i, 'an https:// origin such as https://exchange.example.org');
  const certificateArn = matching(node, 'certificateArn', /^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/[\w-]+$/, 'an ACM certificate ARN in us-east-1 (CloudFront reads certificates only there)');
  if (certificateArn && !siteUrl) throw new SettingError('certificateArn', certificateArn, 'to come with siteUrl, whose host the certificate serves');
  const namePrefix = text(node, 'namePrefix');
  const alarmEmail = matching(node, 'alarmEmail', /^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'an e-mail address');
  const webAclArn = matching(node, 'webAclArn', /^arn:aws[a-z-]*:wafv2:us-east-1:\d{12}:global\/webacl\/.+$/, 'a WAFv2 web ACL ARN of scope CLOUDFRONT (us-east-1, global/webacl/...)');
  const rate = positiveInteger(node, 'apiRateLimit', DEFAULT_API_THROTTLE.rate);
  const reserved = reservedConcurrency(node);
  return {
    stackName: text(node, 'stackName') ?? 'ClinicalDataExchange',
    namespace: namespace(node),
    portal: portalConfig({ iss: text(node, 'smartIss'), clientId: text(node, 'smartClientId'), scopes: text(node, 'smartScopes'), clientIds: node.tryGetContext('smartClientIds') }),
    logRetention: logRetention(node),
    lambdaConcurrencyQuota: positiveInteger(node, 'lambdaConcurrencyQuota', DEFAULT_LAMBDA_CONCURRENCY_QUOTA),
    // The burst defaults to twice the rate, as the API's own default pair (500, 1000) does.
    apiThrottle: { rate, burst: positiveInteger(node, 'apiBurstLimit', Math.max(rate * 2, DEFAULT_API_THROTTLE.burst)) },
    signingKeyGeneration: positiveInteger(node, 'signingKeyGeneration', 1),
    exports: {
      expiryHours: positiveInteger(node, 'exportExpiryHours', DEFAULT_EXPORTS.expiryHours),
      maxJobsPerCaller: positiveInteger(node, 'exportMaxJobs', DEFAULT_EXPORTS.maxJobsPerCaller),
    },
    mcpAllowedOrigins: origins(node, 'mcpAllowedOrigins'),
    mcpRateLimitPerMinute: countOrOff(node, 'mcpRateLimitPerMinute', DEFAULT_MCP_RATE_LIMIT_PER_MINUTE),
    ...(siteUrl ? { siteUrl: siteUrl.replace(/\/$/, '') } : {}),
    ...(namePrefix ? { namePrefix } : {}),
    ...(alarmEmail ? { alarmEmail } : {}),
    ...(reserved ? { reservedConcurrency: reserved } : {}),
    ...(certificateArn ? { certificateArn } : {}),
    ...(webAclArn ? { webAclArn } : {}),
  };
}
