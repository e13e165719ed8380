/**
 * Least-privilege grants as explicit action lists: no wildcard actions, and no Scan anywhere,
 * because no code path scans a table. Indexes are named one by one from the shared table
 * definitions, so a function can query exactly the indexes that exist. Each grant is a statement
 * of the family's own customer-managed policy (see functions.ts).
 */
import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { RATE_WINDOW_PREFIX } from '../../shared/store/directory-keys';
import type { TableDefinition } from '../../shared/store/tables';

export const DYNAMO_READ = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem', 'dynamodb:DescribeTable'];
export const DYNAMO_WRITE = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

/** The ARNs of the table's local and global indexes, by name. */
export function indexArns(table: dynamodb.TableV2, definition: TableDefinition): string[] {
  return [...definition.localIndexes, ...definition.globalIndexes].map((i) => `${table.tableArn}/index/${i.name}`);
}

export function grantTable(policy: iam.ManagedPolicy, table: dynamodb.TableV2, definition: TableDefinition, mode: 'read' | 'read-write'): void {
  policy.addStatements(
    new iam.PolicyStatement({
      actions: mode === 'read' ? DYNAMO_READ : [...DYNAMO_READ, ...DYNAMO_WRITE],
      resources: [table.tableArn, ...indexArns(table, definition)],
    }),
  );
}

/**
 * `/mcp`'s rate windows: UpdateItem on the directory table, only on items whose partition key is a
 * rate window's (`dynamodb:LeadingKeys`), so the function can count requests and change nothing else.
 */
export function grantRateWindows(policy: iam.ManagedPolicy, table: dynamodb.TableV2): void {
  policy.addStatements(
    new iam.PolicyStatement({
      actions: ['dynamodb:UpdateItem'],
      resources: [table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${RATE_WINDOW_PREFIX}*`] } },
    }),
  );
}

export type BucketAccess = 'get' | 'put' | 'delete' | 'list';

export function grantBucketObjects(policy: iam.ManagedPolicy, bucket: s3.IBucket, actions: readonly BucketAccess[]): void {
  const names = { get: 's3:GetObject', put: 's3:PutObject', delete: 's3:DeleteObject' } as const;
  const objectActions = actions.filter((a): a is keyof typeof names => a !== 'list').map((a) => names[a]);
  if (objectActions.length > 0) policy.addStatements(new iam.PolicyStatement({ actions: objectActions, resources: [bucket.arnForObjects('*')] }));
  // Listing is granted on the bucket itself (deleting a source's or a patient's bodies sweeps a prefix).
  if (actions.includes('list')) policy.addStatements(new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn] }));
  // SSE-KMS: reading an object decrypts its data key, writing one makes a data key; only through S3.
  const keyActions = [...(actions.includes('get') ? ['kms:Decrypt'] : []), ...(actions.includes('put') ? ['kms:GenerateDataKey'] : [])];
  if (bucket.encryptionKey && keyActions.length > 0) {
    policy.addStatements(
      new iam.PolicyStatement({
        actions: keyActions,
        resources: [bucket.encryptionKey.keyArn],
        conditions: { StringEquals: { 'kms:ViaService': `s3.${Stack.of(bucket).region}.amazonaws.com` } },
      }),
    );
  }
}

/** Sending to a queue (encrypted with a customer key: sending makes and reads its data key, only through SQS). */
export function grantSendMessages(policy: iam.ManagedPolicy, queue: sqs.IQueue): void {
  policy.addStatements(new iam.PolicyStatement({ actions: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'], resources: [queue.queueArn] }));
  grantQueueKey(policy, queue);
}

/** Receiving from a queue (the worker's event source mapping polls it with the function's role). */
export function grantReceiveMessages(policy: iam.ManagedPolicy, queue: sqs.IQueue): void {
  policy.addStatements(new iam.PolicyStatement({ actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueAttributes'], resources: [queue.queueArn] }));
  grantQueueKey(policy, queue);
}

function grantQueueKey(policy: iam.ManagedPolicy, queue: sqs.IQueue): void {
  if (!queue.encryptionMasterKey) return;
  policy.addStatements(
    new iam.PolicyStatement({
      actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
      resources: [queue.encryptionMasterKey.keyArn],
      conditions: { StringEquals: { 'kms:ViaService': `sqs.${Stack.of(queue).region}.amazonaws.com` } },
    }),
  );
}
