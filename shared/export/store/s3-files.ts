/**
 * Export files in their own S3 bucket, under the job's id. Each file is a multipart upload fed as
 * lines are made (`@aws-sdk/lib-storage`, one 16 MiB part in memory at a time), so a worker's memory
 * stays flat however large the file; the object is stored as `application/fhir+ndjson`. Downloads
 * are pre-signed GETs, so no file byte passes through a Lambda or the HTTP API.
 */
import { PassThrough } from 'node:stream';
import { once } from 'node:events';
import { config } from '../../config';
import { s3 } from '../../store/clients';
import { deleteObjectsUnder } from '../../store/objects';
import { NDJSON } from '../model';
import type { ExportFiles, FileWriter } from './port';

/**
 * The part of a multipart upload, and about what a file holds in memory before it is sent. A file
 * that ends within its first part is one PutObject: a small export's file (10,000 readings make
 * 15 MB) is written at its close in one request, not as a multipart upload created,
 * fed and completed (which on the local store also copies every part once more), and a larger
 * file streams in parts of this size, well within S3's 10,000 parts.
 */
const PART_BYTES = 16 * 1024 * 1024;

const objectKey = (jobId: string, name: string) => `${jobId}/${name}`;

function openUpload(jobId: string, name: string): FileWriter {
  const body = new PassThrough({ highWaterMark: PART_BYTES });
  const upload = Promise.all([import('@aws-sdk/lib-storage'), s3()]).then(([{ Upload }, client]) => {
    const started = new Upload({
      client,
      params: { Bucket: config().exports.bucket, Key: objectKey(jobId, name), Body: body, ContentType: NDJSON },
      partSize: PART_BYTES,
      queueSize: 1,
    });
    const done = started.done();
    done.catch(() => body.destroy());
    return { started, done };
  });
  upload.catch(() => body.destroy());
  return {
    async write(text) {
      if (!body.write(text)) await Promise.race([once(body, 'drain'), upload.then((u) => u.done)]);
    },
    async close() {
      body.end();
      await (await upload).done;
    },
    async abort() {
      const { started, done } = await upload;
      await started.abort().catch(() => undefined);
      await done.catch(() => undefined);
      body.destroy();
    },
  };
}

export const files: ExportFiles = {
  open: openUpload,
  async downloadUrl(jobId, name, seconds) {
    const [{ GetObjectCommand }, { getSignedUrl }, client] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/s3-request-presigner'), s3()]);
    return getSignedUrl(client, new GetObjectCommand({ Bucket: config().exports.bucket, Key: objectKey(jobId, name) }), { expiresIn: seconds });
  },
  removeAll: (jobId) => deleteObjectsUnder(config().exports.bucket, `${jobId}/`),
};
