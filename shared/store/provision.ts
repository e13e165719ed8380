/**
 * Creates the tables and the bucket from the shared definitions where they do not exist yet.
 * Used by the local runtime and the tests; on AWS the CDK stack owns them.
 */
import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
  type DynamoDBClient,
  type TableDescription,
} from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, HeadBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { config, type Config } from '../config';
import { createTableInput, TABLES, tableName } from './tables';

async function describeTable(client: DynamoDBClient, name: string): Promise<TableDescription | undefined> {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: name }))).Table;
  } catch (e) {
    if (e instanceof ResourceNotFoundException) return undefined;
    throw e;
  }
}

export async function tableExists(client: DynamoDBClient, name: string): Promise<boolean> {
  return (await describeTable(client, name)) !== undefined;
}

/** A table made by an earlier version with a stream gets it turned off (see `createTableInput`). */
async function withoutStream(client: DynamoDBClient, table: TableDescription): Promise<void> {
  if (!table.StreamSpecification?.StreamEnabled) return;
  await client.send(new UpdateTableCommand({ TableName: table.TableName, StreamSpecification: { StreamEnabled: false } }));
  await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1 }, { TableName: table.TableName! });
}

export async function ensureTables(client: DynamoDBClient, cfg: Config = config()): Promise<string[]> {
  const created: string[] = [];
  for (const table of TABLES) {
    const name = tableName(table, cfg);
    const existing = await describeTable(client, name);
    if (existing) {
      await withoutStream(client, existing);
      continue;
    }
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
