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

export function grantBucketObjects(fn: iam.IGrantable, bucket: s3.IBucket, actions: readonly ('get' | 'put' | 'delete')[]): void {
  const names = { get: 's3:GetObject', put: 's3:PutObject', delete: 's3:DeleteObject' } as const;
  iam.Grant.addToPrincipal({ grantee: fn, actions: actions.map((a) => names[a]), resourceArns: [bucket.arnForObjects('*')] });
}
