/**
 * The bodies in S3, the service adapter's bucket beside its table. Objects are written once (each
 * write of a resource is a new key), under a prefix per patient and source, so a segment's bodies
 * go in one sweep by prefix.
 */
import { config } from '../../config';
import { s3 } from '../../store/clients';
import { bodyKeys } from '../keys';
import type { Bodies } from './port';

/** The S3 SDK, loaded with the client on first use (see `s3()`). */
const sdk = () => import('@aws-sdk/client-s3');

/** Deletes every object under a prefix (a source's or a patient's bodies); returns how many. */
async function deleteBodiesUnder(prefix: string): Promise<number> {
  const { DeleteObjectsCommand, ListObjectsV2Command } = await sdk();
  const client = await s3();
  const bucket = config().auxBucket;
  let deleted = 0;
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }));
    const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key! }));
    if (keys.length > 0) {
      const out = await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys, Quiet: true } }));
      if (out.Errors && out.Errors.length > 0) {
        throw new Error(`could not delete ${out.Errors.length} auxiliary bodies under ${prefix}: ${out.Errors[0]?.Message ?? 'unknown error'}`);
      }
      deleted += keys.length;
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return deleted;
}

export const bodies: Bodies = {
  put: async (key, json) => {
    const { PutObjectCommand } = await sdk();
    await (await s3()).send(
      new PutObjectCommand({ Bucket: config().auxBucket, Key: key, Body: json, ContentType: 'application/fhir+json; charset=utf-8' }),
    );
  },
  get: async (key) => {
    const { GetObjectCommand } = await sdk();
    const out = await (await s3()).send(new GetObjectCommand({ Bucket: config().auxBucket, Key: key }));
    return out.Body!.transformToString('utf8');
  },
  remove: async (key) => {
    const { DeleteObjectCommand } = await sdk();
    await (await s3()).send(new DeleteObjectCommand({ Bucket: config().auxBucket, Key: key }));
  },
  removeAll: (segment) => deleteBodiesUnder(bodyKeys.ofSegment(segment)),
};
