/** One Lambda per endpoint family, from the bundles `scripts/bundle.ts` writes, with its grants. */
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { FAMILIES, type Family } from '../../shared/http/families';
import type { TableDefinition } from '../../shared/store/tables';
import { grantBucketObjects, grantTable, type BucketAccess } from './access';
import type { ServiceTables } from './tables';

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
  // Deleting a patient or a FHIR Source deletes their observations and auxiliary rows.
  api: { tables: { observations: 'read-write', aux: 'read-write', directory: 'read-write' }, bucket: ['get', 'delete', 'list'], signs: false },
  oauth: { tables: { directory: 'read-write' }, bucket: [], signs: true },
};

export interface FunctionsProps {
  bundleRoot: string;
  tables: ServiceTables;
  auxBucket: s3.IBucket;
  signingKey: kms.IKey;
  environment: Record<string, string>;
  logRetention: logs.RetentionDays;
  /** SSM parameter holding the public site URL, read once per cold start. */
  siteUrlParameterName: string;
}

export class Functions extends Construct {
  readonly byFamily: Record<Family, lambda.Function>;

  constructor(scope: Construct, id: string, props: FunctionsProps) {
    super(scope, id);
    const build = (family: Family): lambda.Function => {
      const logGroup = new logs.LogGroup(this, `${family}-logs`, {
        retention: props.logRetention,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      const fn = new lambda.Function(this, family, {
        description: `Clinical data exchange: ${family} endpoints`,
        runtime: lambda.Runtime.NODEJS_22_X,
        architecture: lambda.Architecture.ARM_64,
        code: lambda.Code.fromAsset(`${props.bundleRoot}/${family}`),
        handler: 'index.handler',
        memorySize: 1024,
        timeout: Duration.seconds(29),
        logGroup,
        loggingFormat: lambda.LoggingFormat.JSON,
        environment: {
          ...props.environment,
          NODE_OPTIONS: '--enable-source-maps',
          TOKEN_SIGNING_KEY_ID: props.signingKey.keyArn,
        },
      });
      const access = FAMILY_ACCESS[family];
      for (const [tableId, mode] of Object.entries(access.tables)) {
        grantTable(fn, props.tables[tableId as TableDefinition['id']], mode);
      }
      if (access.bucket.length > 0) grantBucketObjects(fn, props.auxBucket, access.bucket);
      iam.Grant.addToPrincipal({
        grantee: fn,
        actions: ['ssm:GetParameter'],
        resourceArns: [Stack.of(this).formatArn({ service: 'ssm', resource: 'parameter', resourceName: props.siteUrlParameterName.replace(/^\//, '') })],
      });
      // Every family verifies tokens with the public key; only the OAuth server signs.
      iam.Grant.addToPrincipal({
        grantee: fn,
        actions: access.signs ? ['kms:GetPublicKey', 'kms:Sign'] : ['kms:GetPublicKey'],
        resourceArns: [props.signingKey.keyArn],
      });
      return fn;
    };
    this.byFamily = Object.fromEntries(FAMILIES.map((f) => [f, build(f)])) as Record<Family, lambda.Function>;
  }
}
