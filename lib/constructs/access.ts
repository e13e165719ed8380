/**
 * Least-privilege grants as explicit action lists: no wildcard actions, and no Scan anywhere,
 * because no code path scans a table.
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as s3 from 'aws-cdk-lib/aws-s3';

export const DYNAMO_READ = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem', 'dynamodb:DescribeTable'];
export const DYNAMO_WRITE = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

export function grantTable(fn: iam.IGrantable, table: dynamodb.TableV2, mode: 'read' | 'read-write'): void {
  iam.Grant.addToPrincipal({
    grantee: fn,
    actions: mode === 'read' ? DYNAMO_READ : [...DYNAMO_READ, ...DYNAMO_WRITE],
    resourceArns: [table.tableArn, `${table.tableArn}/index/*`],
  });
}

export type BucketAccess = 'get' | 'put' | 'delete' | 'list';

export function grantBucketObjects(fn: iam.IGrantable, bucket: s3.IBucket, actions: readonly BucketAccess[]): void {
  const names = { get: 's3:GetObject', put: 's3:PutObject', delete: 's3:DeleteObject' } as const;
  const objectActions = actions.filter((a): a is keyof typeof names => a !== 'list').map((a) => names[a]);
  if (objectActions.length > 0) iam.Grant.addToPrincipal({ grantee: fn, actions: objectActions, resourceArns: [bucket.arnForObjects('*')] });
  // Listing is granted on the bucket itself (deleting a source's or a patient's bodies sweeps a prefix).
  if (actions.includes('list')) iam.Grant.addToPrincipal({ grantee: fn, actions: ['s3:ListBucket'], resourceArns: [bucket.bucketArn] });
}
