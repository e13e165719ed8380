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
import { Construct } from 'constructs';
import { FAMILIES, type Family } from '../../shared/http/families';
import { TABLES, type TableDefinition } from '../../shared/store/tables';
import { METRICS_NAMESPACE } from '../../shared/telemetry/names';
import { grantBucketObjects, grantTable, type BucketAccess } from './access';
import type { ServiceTables } from './tables';
import { FUNCTION_TIMEOUT_MS } from '../../shared/http/deadline';

interface FamilyAccess {
  tables: Partial<Record<TableDefinition['id'], 'read' | 'read-write'>>;
  bucket: BucketAccess[];
  /** Signs access tokens (only the OAuth server does). */
  signs: boolean;
}

/** What each family may touch, and nothing more. */
export const FAMILY_ACCESS: Record<Family, FamilyAccess> = {
  // Observation ids come from counters in the directory table, hence its write access.
  fhir: { tables: { observations: 'read-write', aux: 'read-write', directory: 'read-write' }, bucket: ['get', 'put', 'delete'], signs: false },
  'fhir-import': {
    tables: { observations: 'read-write', aux: 'read-write', directory: 'read-write' },
    bucket: ['get', 'put', 'delete'],
    signs: false,
  },
  // Deleting a patient or a FHIR Source deletes their observations and auxiliary rows. The portal's
  // hospital picker only reads the brands directory: the operator's `npm run brands` loads it.
  api: { tables: { observations: 'read-write', aux: 'read-write', directory: 'read-write', brands: 'read' }, bucket: ['get', 'delete', 'list'], signs: false },
  oauth: { tables: { directory: 'read-write' }, bucket: [], signs: true },
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
      const logGroup = new logs.LogGroup(this, `${family}-logs`, {
        retention: props.logRetention,
        encryptionKey: props.logKey,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      const role = new iam.Role(this, `${family}-role`, {
        assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
        description: `Clinical data exchange: the ${family} function`,
      });
      const policy = new iam.ManagedPolicy(this, `${family}-policy`, {
        description: `Everything the ${family} function of ${Stack.of(this).stackName} may do`,
        roles: [role],
      });
      const fn = new lambda.Function(this, family, {
        description: `Clinical data exchange: ${family} endpoints`,
        runtime: lambda.Runtime.NODEJS_22_X,
        architecture: lambda.Architecture.ARM_64,
        code: lambda.Code.fromAsset(`${props.bundleRoot}/${family}`),
        handler: 'index.handler',
        memorySize: 1024,
        timeout: Duration.millis(FUNCTION_TIMEOUT_MS),
        role,
        logGroup,
        loggingFormat: lambda.LoggingFormat.JSON,
        ...(props.reservedConcurrency ? { reservedConcurrentExecutions: props.reservedConcurrency[family] } : {}),
        environment: {
          ...props.environment,
          NODE_OPTIONS: '--enable-source-maps',
          TOKEN_SIGNING_KEY_ID: current.keyArn,
          ...(previous ? { TOKEN_PREVIOUS_SIGNING_KEY_IDS: previous.keyArn } : {}),
          // Powertools reads these: the family is the `service` of every log line and metric.
          POWERTOOLS_SERVICE_NAME: family,
          POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        },
      });
      // Active tracing is set on the function resource itself: the L2 `tracing` option would add its
      // X-Ray statement to an inline policy; the statement is in the family policy below instead.
      (fn.node.defaultChild as lambda.CfnFunction).tracingConfig = { mode: lambda.Tracing.ACTIVE };
      // The function must not run before its permissions exist.
      fn.node.addDependency(policy);

      policy.addStatements(
        new iam.PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup.logGroupArn] }),
        // X-Ray's write actions have no resource-level permissions: `*` is the only resource they take.
        new iam.PolicyStatement({ actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], resources: ['*'] }),
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
      if (access.bucket.length > 0) grantBucketObjects(policy, props.auxBucket, access.bucket);
      logGroups[family] = logGroup;
      policies[family] = policy;
      return fn;
    };
    this.byFamily = Object.fromEntries(FAMILIES.map((f) => [f, build(f)])) as Record<Family, lambda.Function>;
    this.logGroups = logGroups;
    this.policies = policies;
  }
}
