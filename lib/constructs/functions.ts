/**
 * One Lambda per endpoint family, from the bundles `scripts/bundle.ts` writes, with its grants.
 *
 * Each family has its own role whose only permissions are one customer-managed policy: every
 * statement the function needs (its log group, X-Ray, tables, bucket, keys, the site URL
 * parameter) in one versioned document an auditor can read in the IAM console, and no AWS managed
 * policy (the basic execution policy would let it write to any log group). A grant added later
 * with CDK's `grant*` methods would land in an inline policy instead, which cdk-nag's HIPAA pack
 * reports, so it cannot slip in unnoticed.
 */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { FAMILIES, type Family } from '../../shared/http/families';
import { TABLES, type TableDefinition } from '../../shared/store/tables';
import { METRICS_NAMESPACE } from '../../shared/telemetry/names';
import { grantBucketObjects, grantRateWindows, grantSendMessages, grantTable, type BucketAccess } from './access';
import type { ServiceTables } from './tables';
import { FUNCTION_TIMEOUT_MS } from '../../shared/http/deadline';

interface FamilyAccess {
  tables: Partial<Record<TableDefinition['id'], 'read' | 'read-write'>>;
  bucket: BucketAccess[];
  /** Signs access tokens (only the OAuth server does). */
  signs: boolean;
  /** Counts its callers' requests in the directory table's rate windows (`/mcp`'s rate limit), and writes nothing else there. */
  countsRequests?: true;
  /** Bulk export: the files it may touch (a download is signed with them), and whether it hands work to the worker. */
  exports?: { files: BucketAccess[]; sendsWork: boolean };
}

/** What each family may touch, and nothing more. */
export const FAMILY_ACCESS: Record<Family, FamilyAccess> = {
  // Observation ids come from counters in the directory table, hence its write access. The export
  // kick-off, status and downloads are FHIR operations: jobs, signed downloads, cancelled files, the worker's queue.
  fhir: {
    tables: { observations: 'read-write', aux: 'read-write', directory: 'read-write', exports: 'read-write' },
    bucket: ['get', 'put', 'delete'],
    signs: false,
    exports: { files: ['get', 'delete', 'list'], sendsWork: true },
  },
  'fhir-import': {
    tables: { observations: 'read-write', aux: 'read-write', directory: 'read-write' },
    bucket: ['get', 'put', 'delete'],
    signs: false,
  },
  // Deleting a patient or a FHIR Source deletes their observations and auxiliary rows. The portal's
  // hospital picker only reads the brands directory: the operator's `npm run brands` loads it.
  api: { tables: { observations: 'read-write', aux: 'read-write', directory: 'read-write', brands: 'read' }, bucket: ['get', 'delete', 'list'], signs: false },
  oauth: { tables: { directory: 'read-write' }, bucket: [], signs: true },
  // The assistants' tools only read: readings, auxiliary records (large bodies in the bucket), the
  // directory; the endpoint counts each client's requests in the directory's rate windows only.
  mcp: { tables: { observations: 'read', aux: 'read', directory: 'read' }, bucket: ['get'], signs: false, countsRequests: true },
};

/** The keys tokens are signed and verified with: the current one signs, the previous one still verifies. */
export interface SigningKeys {
  current: kms.IKey;
  previous?: kms.IKey;
}

export interface FunctionsProps {
  bundleRoot: string;
  tables: ServiceTables;
  auxBucket: s3.IBucket;
  signingKeys: SigningKeys;
  /** Encrypts the log groups. */
  logKey: kms.IKey;
  environment: Record<string, string>;
  logRetention: logs.RetentionDays;
  /** SSM parameter holding the public site URL, read once per cold start. */
  siteUrlParameterName: string;
  /** Reserved concurrency per family; undefined: the account's unreserved pool. */
  reservedConcurrency?: Record<Family, number>;
  /** The export files and the worker's queue (lib/constructs/export-work.ts). */
  exports: { bucket: s3.IBucket; queue: sqs.IQueue };
}

export class Functions extends Construct {
  readonly byFamily: Record<Family, lambda.Function>;
  readonly logGroups: Record<Family, logs.LogGroup>;
  readonly policies: Record<Family, iam.ManagedPolicy>;

  constructor(scope: Construct, id: string, props: FunctionsProps) {
    super(scope, id);
    const logGroups = {} as Record<Family, logs.LogGroup>;
    const policies = {} as Record<Family, iam.ManagedPolicy>;
    const { current, previous } = props.signingKeys;
    const build = (family: Family): lambda.Function => {
      const { fn, policy, logGroup } = serviceFunction(this, family, {
        logKey: props.logKey,
        logRetention: props.logRetention,
        description: `Clinical data exchange: ${family} endpoints`,
        code: `${props.bundleRoot}/${family}`,
        memorySize: 1024,
        timeout: Duration.millis(FUNCTION_TIMEOUT_MS),
        ...(props.reservedConcurrency ? { reservedConcurrency: props.reservedConcurrency[family] } : {}),
        environment: {
          ...props.environment,
          TOKEN_SIGNING_KEY_ID: current.keyArn,
          ...(previous ? { TOKEN_PREVIOUS_SIGNING_KEY_IDS: previous.keyArn } : {}),
        },
      });
      policy.addStatements(
        new iam.PolicyStatement({
          actions: ['ssm:GetParameter'],
          resources: [Stack.of(this).formatArn({ service: 'ssm', resource: 'parameter', resourceName: props.siteUrlParameterName.replace(/^\//, '') })],
        }),
        // Every family verifies tokens with the public keys; only the OAuth server signs, with the current key.
        new iam.PolicyStatement({ actions: ['kms:GetPublicKey'], resources: [current.keyArn, ...(previous ? [previous.keyArn] : [])] }),
      );
      const access = FAMILY_ACCESS[family];
      if (access.signs) policy.addStatements(new iam.PolicyStatement({ actions: ['kms:Sign'], resources: [current.keyArn] }));
      for (const definition of TABLES) {
        const mode = access.tables[definition.id];
        if (mode) grantTable(policy, props.tables[definition.id], definition, mode);
      }
      if (access.countsRequests) grantRateWindows(policy, props.tables.directory);
      if (access.bucket.length > 0) grantBucketObjects(policy, props.auxBucket, access.bucket);
      if (access.exports) {
        grantBucketObjects(policy, props.exports.bucket, access.exports.files);
        if (access.exports.sendsWork) grantSendMessages(policy, props.exports.queue);
      }
      logGroups[family] = logGroup;
      policies[family] = policy;
      return fn;
    };
    this.byFamily = Object.fromEntries(FAMILIES.map((f) => [f, build(f)])) as Record<Family, lambda.Function>;
    this.logGroups = logGroups;
    this.policies = policies;
  }
}

export interface ServiceFunctionProps {
  description: string;
  /** Folder of the bundle (`index.mjs`). */
  code: string;
  memorySize: number;
  timeout: Duration;
  reservedConcurrency?: number;
  environment: Record<string, string>;
  /** Encrypts the log group. */
  logKey: kms.IKey;
  logRetention: logs.RetentionDays;
}

/**
 * One function of the service (an endpoint family, or the export worker) with its own log group
 * (encrypted, retained as the setting says), its own role and one customer-managed policy holding
 * every statement it needs: writing its log group and X-Ray traces here, the rest added by the
 * caller. On `nodejs22.x`, arm64, JSON logs, active tracing.
 */
export function serviceFunction(scope: Construct, id: string, props: ServiceFunctionProps): { fn: lambda.Function; policy: iam.ManagedPolicy; logGroup: logs.LogGroup } {
  const logGroup = new logs.LogGroup(scope, `${id}-logs`, {
    retention: props.logRetention,
    encryptionKey: props.logKey,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const role = new iam.Role(scope, `${id}-role`, {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: `Clinical data exchange: the ${id} function`,
  });
  const policy = new iam.ManagedPolicy(scope, `${id}-policy`, {
    description: `Everything the ${id} function of ${Stack.of(scope).stackName} may do`,
    roles: [role],
  });
  const fn = new lambda.Function(scope, id, {
    description: props.description,
    runtime: lambda.Runtime.NODEJS_22_X,
    architecture: lambda.Architecture.ARM_64,
    code: lambda.Code.fromAsset(props.code),
    handler: 'index.handler',
    memorySize: props.memorySize,
    timeout: props.timeout,
    role,
    logGroup,
    loggingFormat: lambda.LoggingFormat.JSON,
    ...(props.reservedConcurrency !== undefined ? { reservedConcurrentExecutions: props.reservedConcurrency } : {}),
    environment: {
      ...props.environment,
      NODE_OPTIONS: '--enable-source-maps',
      // Powertools reads these: the function's id is the `service` of every log line and metric.
      POWERTOOLS_SERVICE_NAME: id,
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
    },
  });
  // Active tracing is set on the function resource itself: the L2 `tracing` option would add its
  // X-Ray statement to an inline policy; the statement is in the function's policy below instead.
  (fn.node.defaultChild as lambda.CfnFunction).tracingConfig = { mode: lambda.Tracing.ACTIVE };
  // The function must not run before its permissions exist.
  fn.node.addDependency(policy);
  policy.addStatements(
    new iam.PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup.logGroupArn] }),
    // X-Ray's write actions have no resource-level permissions: `*` is the only resource they take.
    new iam.PolicyStatement({ actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], resources: ['*'] }),
  );
  return { fn, policy, logGroup };
}
