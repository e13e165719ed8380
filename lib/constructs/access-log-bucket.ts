/**
 * Where S3 server access logs (of the auxiliary and portal buckets) and CloudFront's standard logs
 * go: one private bucket, encrypted with the data key, kept as long as the log groups. Each source
 * writes under its own prefix (`ACCESS_LOG_PREFIX`), so Athena or a download can read one at a time.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

export const ACCESS_LOG_PREFIX = {
  auxBodies: 's3/aux-bodies/',
  exportFiles: 's3/export-files/',
  portalSite: 's3/portal-site/',
  cloudFront: 'cloudfront/',
} as const;

export interface AccessLogBucketProps {
  key: kms.IKey;
  retention: logs.RetentionDays;
}

export class AccessLogBucket extends Construct {
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: AccessLogBucketProps) {
    super(scope, id);
    const expires = props.retention === logs.RetentionDays.INFINITE ? undefined : Duration.days(props.retention);
    this.bucket = new s3.Bucket(this, 'bucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.KMS,
      encryptionKey: props.key,
      // One data key per bucket and period instead of a KMS request per log object.
      bucketKeyEnabled: true,
      enforceSSL: true,
      versioned: true,
      // CloudFront's standard logging writes through the bucket ACL (its log-delivery account gets
      // FULL_CONTROL), so ACLs must be enabled; the bucket owner still owns every object.
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [
        {
          ...(expires ? { expiration: expires, noncurrentVersionExpiration: Duration.days(1) } : {}),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      // Access logs are evidence: they stay when the stack goes.
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
