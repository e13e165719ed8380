/** The worker's queue on AWS: SQS, a batch of messages a call. Locally `npm start` installs its own (local/export-worker.ts). */
import { config } from '../../config';
import { chunksOf } from '../../lists';
import { QUEUE_BATCH, type ExportQueue } from './port';

type SqsClient = import('@aws-sdk/client-sqs').SQSClient;
let client: Promise<SqsClient> | undefined;

/** The SQS client, loaded on first use: only a kick-off and the worker's fan-out send. */
function sqs(): Promise<SqsClient> {
  client ??= import('@aws-sdk/client-sqs').then(({ SQSClient }) => new SQSClient({ maxAttempts: 6 }));
  return client;
}

export const sqsQueue: ExportQueue = {
  async send(messages) {
    const url = config().exports.queueUrl;
    if (!url) throw new Error('No export queue is configured (EXPORT_QUEUE_URL).');
    const { SendMessageBatchCommand } = await import('@aws-sdk/client-sqs');
    for (const batch of chunksOf(messages, QUEUE_BATCH)) {
      const out = await (await sqs()).send(
        new SendMessageBatchCommand({ QueueUrl: url, Entries: batch.map((m, i) => ({ Id: String(i), MessageBody: JSON.stringify(m) })) }),
      );
      if (out.Failed && out.Failed.length > 0) throw new Error(`SQS refused ${out.Failed.length} export messages: ${out.Failed[0]?.Message ?? out.Failed[0]?.Code}`);
    }
  },
};
