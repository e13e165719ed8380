/** The whole service on AWS: tables, bucket, signing key, four Lambdas, the HTTP API and CloudFront. */
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { Functions } from './constructs/functions';
import { ServiceHttpApi } from './constructs/http-api';
import { Portal } from './constructs/portal';
import { Tables } from './constructs/tables';
import type { PortalConfig } from '../shared/portal/config';

export interface ServiceStackProps extends StackProps {
  /** Folder holding `<family>/index.mjs` bundles. */
  bundleRoot: string;
  /** Folder of the built static site (`scripts/portal-site.ts`). */
  siteDir: string;
  /** The portal's launch configuration, deployed next to its pages. */
  portal: PortalConfig;
  /** Public origin (custom domain) for invitation links and token issuer; empty = the request's own host. */
  siteUrl?: string;
  /** Prefix of table names, so several stages can share an account. */
  namePrefix?: string;
  logRetention?: logs.RetentionDays;
}

export class ServiceStack extends Stack {
  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const namePrefix = props.namePrefix ?? `${id.toLowerCase()}-`;
    const logRetention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;

    const { tables } = new Tables(this, 'tables', { namePrefix });

    const auxBucket = new s3.Bucket(this, 'aux-bodies', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      // Versions kept after an overwrite or a deletion go after 35 days, like the tables' point-in-time recovery window.
      lifecycleRules: [{ noncurrentVersionExpiration: Duration.days(35), expiredObjectDeleteMarker: true, abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // Access tokens are signed inside KMS: the private key never leaves it.
    const signingKey = new kms.Key(this, 'token-signing-key', {
      description: 'Signs the access tokens of the clinical data exchange (ES256)',
      keySpec: kms.KeySpec.ECC_NIST_P256,
      keyUsage: kms.KeyUsage.SIGN_VERIFY,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // The public origin reaches the functions through SSM (see shared/http/middleware/site-url.ts):
    // its name is fixed here, its value is written once the distribution exists.
    const siteUrlParameterName = `/${id}/site-url`;

    const functions = new Functions(this, 'functions', {
      bundleRoot: props.bundleRoot,
      tables,
      auxBucket,
      signingKey,
      logRetention,
      siteUrlParameterName,
      environment: {
        RESOURCE_PREFIX: namePrefix,
        OBSERVATIONS_TABLE: tables.observations.tableName,
        AUX_TABLE: tables.aux.tableName,
        DIRECTORY_TABLE: tables.directory.tableName,
        AUX_BUCKET: auxBucket.bucketName,
        SITE_URL_PARAMETER: siteUrlParameterName,
        LOG_LEVEL: 'info',
      },
    });

    const { api } = new ServiceHttpApi(this, 'http', {
      functions: functions.byFamily,
      logRetention,
      throttle: { rate: 500, burst: 1000 },
    });

    const portal = new Portal(this, 'portal', { api, siteDir: props.siteDir, config: props.portal });
    const siteUrl = props.siteUrl ?? `https://${portal.distribution.distributionDomainName}`;
    new ssm.StringParameter(this, 'site-url', {
      parameterName: siteUrlParameterName,
      stringValue: siteUrl,
      description: 'Public origin of the clinical data exchange (token issuer, invitation links)',
    });

    new CfnOutput(this, 'ApiUrl', { value: api.apiEndpoint });
    new CfnOutput(this, 'SiteUrl', { value: siteUrl });
  }
}
