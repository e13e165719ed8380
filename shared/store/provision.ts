/**
 * Creates the tables and the bucket from the shared definitions where they do not exist yet.
 * Used by the local runtime and the tests; on AWS the CDK stack owns them.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { config, type Config } from '../config';
import { createTableInput, TABLES, tableName } from './tables';

export async function tableExists(client: DynamoDBClient, name: string): Promise<boolean> {
  try {
    await client.send(new DescribeTableCommand({ TableName: name }));
    return true;
  } catch (e) {
    if (e instanceof ResourceNotFoundException) return false;
    throw e;
  }
}

export async function ensureTables(client: DynamoDBClient, cfg: Config = config()): Promise<string[]> {
  const created: string[] = [];
  for (const table of TABLES) {
    const name = tableName(table, cfg);
    if (await tableExists(client, name)) continue;
    try {
      await client.send(new CreateTableCommand(createTableInput(table, name)));
    } catch (e) {
      if (!(e instanceof ResourceInUseException)) throw e;
    }
    await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1 }, { TableName: name });
    if (table.ttlAttribute) {
      await client.send(
        new UpdateTimeToLiveCommand({
          TableName: name,
          TimeToLiveSpecification: { AttributeName: table.ttlAttribute, Enabled: true },
        }),
      );
    }
    created.push(name);
  }
  return created;
}

/** The buckets: auxiliary bodies, and bulk export files. */
export async function ensureBucket(client: S3Client, cfg: Config = config()): Promise<void> {
  for (const bucket of [cfg.auxBucket, cfg.exports.bucket]) {
    try {
      await client.send(new HeadBucketCommand({ Bucket: bucket }));
    } catch {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
    }
  }
}
