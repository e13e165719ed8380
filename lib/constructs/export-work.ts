/**
 * Bulk export's background work (docs/export.md): the bucket the files go to, the queue that feeds
 * the worker with its dead-letter queue, the worker function (its own family: reads the data tables
 * and the auxiliary bodies, writes the exports table and bucket, nothing else), and the schedule of
 * its sweep (stuck jobs failed, expired ones deleted).
 *
 * - Files expire with their job: a lifecycle rule deletes them a day after the job's own expiry at
 *   the latest (S3 counts in whole days from the object's creation), and incomplete multipart
 *   uploads of a worker that stopped go after a day. The bucket is not versioned: a cancelled
 *   export's files must really be gone.
 * - A message is delivered again after the worker's timeout; after `MAX_RECEIVES` deliveries it goes
 *   to the dead-letter queue (alarmed), and the worker fails its job at that last delivery.
 */
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { MAX_RECEIVES } from '../../shared/export/worker';
import { TABLES, type TableDefinition } from '../../shared/store/tables';
import { EXPORT_WORKER } from '../../shared/telemetry/names';
import { ACCESS_LOG_PREFIX } from './access-log-bucket';
import { grantBucketObjects, grantReceiveMessages, grantSendMessages, grantTable } from './access';
import { serviceFunction } from './functions';
import type { ServiceTables } from './tables';

/** Lambda's limit: a part is a few patients, far under it (docs/export.md, limits). */
export const WORKER_TIMEOUT = Duration.minutes(15);
/** How often the sweep runs. */
export const SWEEP_EVERY = Duration.minutes(5);

/** What the worker may touch: it reads the data, writes only export jobs and files. */
const WORKER_TABLES: Partial<Record<TableDefinition['id'], 'read' | 'read-write'>> = { observations: 'read', aux: 'read', directory: 'read', exports: 'read-write' };

export interface ExportWorkProps {
  bundleRoot: string;
  tables: ServiceTables;
  /** The auxiliary bodies (large resources are exported from there). */
  auxBucket: s3.IBucket;
  dataKey: kms.IKey;
  accessLogs: s3.IBucket;
  logRetention: logs.RetentionDays;
  /** Hours a finished job's files are kept (`exportExpiryHours`). */
  expiryHours: number;
  /** Reserved concurrency of the worker; undefined: the account's pool. */
  reservedConcurrency?: number;
  environment: Record<string, string>;
}

export class ExportWork extends Construct {
  readonly bucket: s3.Bucket;
  readonly queue: sqs.Queue;
  readonly deadLetters: sqs.Queue;
  readonly worker: lambda.Function;
  readonly policy: iam.ManagedPolicy;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ExportWorkProps) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'files', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.KMS,
      encryptionKey: props.dataKey,
      bucketKeyEnabled: true,
      enforceSSL: true,
      serverAccessLogsBucket: props.accessLogs,
      serverAccessLogsPrefix: ACCESS_LOG_PREFIX.exportFiles,
      lifecycleRules: [{ id: 'expire-with-job', expiration: Duration.days(Math.ceil(props.expiryHours / 24) + 1), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.deadLetters = new sqs.Queue(this, 'dead-letters', {
      encryption: sqs.QueueEncryption.KMS,
      encryptionMasterKey: props.dataKey,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.queue = new sqs.Queue(this, 'queue', {
      encryption: sqs.QueueEncryption.KMS,
      encryptionMasterKey: props.dataKey,
      enforceSSL: true,
      // A delivery whose worker stopped (timeout, crash) comes back once the worker could no longer be running it.
      visibilityTimeout: WORKER_TIMEOUT.plus(Duration.minutes(1)),
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetters, maxReceiveCount: MAX_RECEIVES },
    });

    const { fn, policy, logGroup } = serviceFunction(this, EXPORT_WORKER, {
      description: 'Clinical data exchange: export worker',
      code: `${props.bundleRoot}/${EXPORT_WORKER}`,
      // A full vCPU: a part renders and uploads as fast as it reads.
      memorySize: 1769,
      timeout: WORKER_TIMEOUT,
      ...(props.reservedConcurrency !== undefined ? { reservedConcurrency: props.reservedConcurrency } : {}),
      logKey: props.dataKey,
      logRetention: props.logRetention,
      environment: props.environment,
    });
    for (const definition of TABLES) {
      const mode = WORKER_TABLES[definition.id];
      if (mode) grantTable(policy, props.tables[definition.id], definition, mode);
    }
    grantBucketObjects(policy, props.auxBucket, ['get']);
    grantBucketObjects(policy, this.bucket, ['put', 'delete', 'list']);
    // It receives its own work, and hands a new job's parts out on the same queue.
    grantReceiveMessages(policy, this.queue);
    grantSendMessages(policy, this.queue);
    // Its grants are the policy's statements above, not the event source's (which would write an inline policy).
    new lambda.EventSourceMapping(this, 'from-queue', {
      target: fn,
      eventSourceArn: this.queue.queueArn,
      batchSize: 1,
      reportBatchItemFailures: true,
    });
    new events.Rule(this, 'sweep', {
      description: 'Clinical data exchange: fail stuck export jobs, delete expired ones',
      schedule: events.Schedule.rate(SWEEP_EVERY),
      targets: [new targets.LambdaFunction(fn, { event: events.RuleTargetInput.fromObject({ sweep: true }), retryAttempts: 2 })],
    });
    this.worker = fn;
    this.policy = policy;
    this.logGroup = logGroup;
  }
}
