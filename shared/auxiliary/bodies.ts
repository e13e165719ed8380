/**
 * Bodies too large for a DynamoDB item, in S3. Objects are immutable (each write of a resource
 * is a new key), so the table never points at a half-written object: a write puts the object
 * first and commits the table after; a refused commit deletes the new object; the old version's
 * object is deleted only once the table no longer points at it. Until then, and while it is
 * written, an object is listed in the table (`pending-bodies.ts`).
 */
import { config } from '../config';
import { s3 } from '../store/clients';

/** The S3 SDK, loaded with the client on first use (see `s3()`). */
const sdk = () => import('@aws-sdk/client-s3');

/**
 * Largest body kept inside the item (UTF-8 bytes of its JSON). DynamoDB items hold 400 KB with
 * their attribute names and the other fields; 350 KiB leaves room for those.
 */
export const INLINE_BODY_LIMIT = 350 * 1024;

export function isTooLargeForItem(json: string): boolean {
  return Buffer.byteLength(json, 'utf8') > INLINE_BODY_LIMIT;
}

export async function putBody(key: string, json: string): Promise<void> {
  const { PutObjectCommand } = await sdk();
  await (await s3()).send(
    new PutObjectCommand({ Bucket: config().auxBucket, Key: key, Body: json, ContentType: 'application/fhir+json; charset=utf-8' }),
  );
}

export async function getBody(key: string): Promise<string> {
  const { GetObjectCommand } = await sdk();
  const out = await (await s3()).send(new GetObjectCommand({ Bucket: config().auxBucket, Key: key }));
  return out.Body!.transformToString('utf8');
}

export async function deleteBody(key: string): Promise<void> {
  const { DeleteObjectCommand } = await sdk();
  await (await s3()).send(new DeleteObjectCommand({ Bucket: config().auxBucket, Key: key }));
}

/** Deletes every object under a prefix (a source's or a patient's bodies); returns how many. */
export async function deleteBodiesUnder(prefix: string): Promise<number> {
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
