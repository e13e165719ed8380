/** The export store port on the exports table, the exports bucket and the worker's SQS queue (the service's adapter). */
import { jobs } from './dynamo-jobs';
import type { ExportStore } from './port';
import { files } from './s3-files';
import { sqsQueue } from './sqs-queue';

export const dynamoExportStore: ExportStore = { jobs, files, queue: sqsQueue };
