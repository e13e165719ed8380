/**
 * The whole service on AWS: tables, buckets, keys, four Lambdas and the export worker, the HTTP API, CloudFront, and
 * what operates it (alarms, dashboard, saved log queries). lib/nag.ts acknowledges, with reasons,
 * the cdk-nag findings the stack keeps on purpose.
 */
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { AccessLogBucket, ACCESS_LOG_PREFIX } from './constructs/access-log-bucket';
import { ServiceAlarms } from './constructs/alarms';
import { ServiceDashboard } from './constructs/dashboard';
import { DataKey } from './constructs/data-key';
import { ExportWork } from './constructs/export-work';
import { Functions, type SigningKeys } from './constructs/functions';
import { ServiceHttpApi } from './constructs/http-api';
import { LogQueries } from './constructs/log-queries';
import { Portal } from './constructs/portal';
import { Tables } from './constructs/tables';
import { FAMILIES } from '../shared/http/families';
import { acknowledgeFindings } from './nag';
import { EXPORT_WORKER_CONCURRENCY, type Settings } from './settings';

export interface ServiceStackProps extends StackProps {
  /** Folder holding `<family>/index.mjs` bundles. */
  bundleRoot: string;
  /** Folder of the built static site (`scripts/portal-site.ts`). */
  siteDir: string;
  settings: Settings;
}

export class ServiceStack extends Stack {
  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const namePrefix = settings.namePrefix ?? `${id.toLowerCase()}-`;

    const { tables } = new Tables(this, 'tables', { namePrefix });
    const { key: dataKey } = new DataKey(this, 'data-key');
    const { bucket: accessLogs } = new AccessLogBucket(this, 'access-logs', { key: dataKey, retention: settings.logRetention });

    const auxBucket = new s3.Bucket(this, 'aux-bodies', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.KMS,
      encryptionKey: dataKey,
      // One data key per bucket and period instead of a KMS request per object read or written.
      bucketKeyEnabled: true,
      enforceSSL: true,
      versioned: true,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: ACCESS_LOG_PREFIX.auxBodies,
      // Versions kept after an overwrite or a deletion go after 35 days, like the tables' point-in-time recovery window.
      lifecycleRules: [{ noncurrentVersionExpiration: Duration.days(35), expiredObjectDeleteMarker: true, abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const signingKeys = tokenSigningKeys(this, settings.signingKeyGeneration);

    // The public origin reaches the functions through SSM (see shared/http/middleware/site-url.ts):
    // its name is fixed here, its value is written once the distribution exists.
    const siteUrlParameterName = `/${id}/site-url`;

    const environment = {
      RESOURCE_PREFIX: namePrefix,
      OBSERVATIONS_TABLE: tables.observations.tableName,
      AUX_TABLE: tables.aux.tableName,
      DIRECTORY_TABLE: tables.directory.tableName,
      BRANDS_TABLE: tables.brands.tableName,
      EXPORTS_TABLE: tables.exports.tableName,
      AUX_BUCKET: auxBucket.bucketName,
      SERVICE_NAMESPACE: settings.namespace,
      EXPORT_EXPIRY_HOURS: String(settings.exports.expiryHours),
      EXPORT_MAX_JOBS: String(settings.exports.maxJobsPerCaller),
      LOG_LEVEL: 'info',
      MCP_RATE_LIMIT_PER_MINUTE: String(settings.mcpRateLimitPerMinute),
      ...(settings.mcpAllowedOrigins.length > 0 ? { MCP_ALLOWED_ORIGINS: settings.mcpAllowedOrigins.join(',') } : {}),
    };
    const exportWork = new ExportWork(this, 'export-work', {
      bundleRoot: props.bundleRoot,
      tables,
      auxBucket,
      dataKey,
      accessLogs,
      logRetention: settings.logRetention,
      expiryHours: settings.exports.expiryHours,
      ...(settings.reservedConcurrency ? { reservedConcurrency: EXPORT_WORKER_CONCURRENCY } : {}),
      environment,
    });
    const exportEnvironment = { EXPORT_BUCKET: exportWork.bucket.bucketName, EXPORT_QUEUE_URL: exportWork.queue.queueUrl };
    exportWork.worker.addEnvironment('EXPORT_BUCKET', exportEnvironment.EXPORT_BUCKET).addEnvironment('EXPORT_QUEUE_URL', exportEnvironment.EXPORT_QUEUE_URL);

    const functions = new Functions(this, 'functions', {
      bundleRoot: props.bundleRoot,
      tables,
      auxBucket,
      exports: { bucket: exportWork.bucket, queue: exportWork.queue },
      signingKeys,
      logKey: dataKey,
      logRetention: settings.logRetention,
      siteUrlParameterName,
      ...(settings.reservedConcurrency ? { reservedConcurrency: settings.reservedConcurrency } : {}),
      environment: { ...environment, ...exportEnvironment, SITE_URL_PARAMETER: siteUrlParameterName },
    });

    const http = new ServiceHttpApi(this, 'http', {
      functions: functions.byFamily,
      logRetention: settings.logRetention,
      logKey: dataKey,
      throttle: settings.apiThrottle,
    });
    const { api } = http;

    const portal = new Portal(this, 'portal', {
      api,
      siteDir: props.siteDir,
      config: settings.portal,
      accessLogs,
      ...(settings.siteUrl && settings.certificateArn ? { domain: { name: new URL(settings.siteUrl).hostname, certificateArn: settings.certificateArn } } : {}),
      ...(settings.webAclArn ? { webAclArn: settings.webAclArn } : {}),
    });
    const siteUrl = settings.siteUrl ?? `https://${portal.distribution.distributionDomainName}`;
    new ssm.StringParameter(this, 'site-url', {
      parameterName: siteUrlParameterName,
      stringValue: siteUrl,
      description: 'Public origin of the clinical data exchange (token issuer, invitation links)',
    });

    const alarms = new ServiceAlarms(this, 'alarms', {
      api,
      functions: functions.byFamily,
      exportWork,
      tables,
      key: dataKey,
      lambdaConcurrencyQuota: settings.lambdaConcurrencyQuota,
      ...(settings.alarmEmail ? { alarmEmail: settings.alarmEmail } : {}),
      ...(settings.reservedConcurrency ? { reservedConcurrency: settings.reservedConcurrency } : {}),
    });
    const { dashboard } = new ServiceDashboard(this, 'dashboard', {
      api,
      functions: functions.byFamily,
      exportWork,
      tables,
      alarms: alarms.alarms,
      lambdaConcurrencyQuota: settings.lambdaConcurrencyQuota,
    });
    new LogQueries(this, 'queries', { functionLogs: [...FAMILIES.map((f) => functions.logGroups[f]), exportWork.logGroup], accessLogs: http.accessLogs });

    acknowledgeFindings({ stack: this, settings, functions, exportWork, http, portal, auxBucket, accessLogs });

    new CfnOutput(this, 'ApiUrl', { value: api.apiEndpoint });
    new CfnOutput(this, 'SiteUrl', { value: siteUrl });
    new CfnOutput(this, 'AlarmTopicArn', { value: alarms.topic.topicArn });
    new CfnOutput(this, 'DashboardName', { value: dashboard.dashboardName });
  }
}

/**
 * Access tokens are signed inside KMS: the private key never leaves it. Generation 1 is the key
 * the stack always had (its construct id is kept so existing deployments keep their key); raising
 * `signingKeyGeneration` adds a new key that signs from then on, while the one before it still
 * verifies the tokens it signed (15 minutes at most). The key two generations back leaves the stack
 * but is retained in KMS, for the operator to schedule its deletion (docs/operations.md).
 */
function tokenSigningKeys(stack: Stack, generation: number): SigningKeys {
  const description = 'Signs the access tokens of the clinical data exchange (ES256)';
  const key = (n: number) =>
    new kms.Key(stack, n === 1 ? 'token-signing-key' : `token-signing-key-${n}`, {
      description: n === 1 ? description : `${description}, generation ${n}`,
      keySpec: kms.KeySpec.ECC_NIST_P256,
      keyUsage: kms.KeyUsage.SIGN_VERIFY,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  return { current: key(generation), ...(generation > 1 ? { previous: key(generation - 1) } : {}) };
}
