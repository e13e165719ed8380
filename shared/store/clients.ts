/**
 * AWS clients, one per process. Endpoints come from the SDK's own variables
 * (`AWS_ENDPOINT_URL_DYNAMODB`, `AWS_ENDPOINT_URL_S3`), so the same code talks to AWS, to the local
 * runtime's engines or to any other DynamoDB server.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { traced } from '../telemetry/tracer';

let documentClient: DynamoDBDocumentClient | undefined;
let s3Client: Promise<S3Client> | undefined;

export function dynamo(): DynamoDBDocumentClient {
  if (!documentClient) {
    // On Lambda one request runs at a time; the local gateway runs a hundred at once through one
    // process, which the SDK's default of 50 sockets would queue.
    const sockets = { maxSockets: 256, keepAlive: true };
    const client = new DynamoDBClient({ maxAttempts: 6, requestHandler: { httpAgent: sockets, httpsAgent: sockets } });
    // The SDK's logger middleware copies every input and output through its sensitive-data filter
    // before it calls the logger, even the no-op one we run with: for a page of 1,000 rows that is
    // most of the client's own cost. Nothing here logs through the SDK, so it goes.
    client.middlewareStack.remove('loggerMiddleware');
    documentClient = DynamoDBDocumentClient.from(traced(client), {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
      unmarshallOptions: { wrapNumbers: false },
    });
  }
  return documentClient;
}

/**
 * The S3 client, loaded on first use: only large auxiliary bodies need S3, so a cold start does
 * not pay for its SDK (the bundler keeps a dynamic import's module in a lazy chunk).
 */
export function s3(): Promise<S3Client> {
  s3Client ??= import('@aws-sdk/client-s3').then(
    ({ S3Client }) =>
      traced(new S3Client({
        maxAttempts: 6,
        // s3rver and other S3-compatible stores need path-style addressing.
        forcePathStyle: Boolean(process.env.AWS_ENDPOINT_URL_S3),
        // Streamed uploads otherwise go out aws-chunked, which S3-compatible stores may store framed.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      })),
  );
  return s3Client;
}

/** Drop the cached clients (after the local runtime or a test changes the endpoints). */
export function resetClients(): void {
  documentClient?.destroy();
  void s3Client?.then((client) => client.destroy());
  documentClient = undefined;
  s3Client = undefined;
}
