/**
 * S3 object helpers every bucket uses: deleting everything under a key prefix (a source's or a
 * patient's bodies, an export job's files). Loaded with the S3 client on first use (see `s3()`).
 */
import { s3 } from './clients';

/** Deletes every object of `bucket` under `prefix` (a page of 1,000 at a time); returns how many. */
export async function deleteObjectsUnder(bucket: string, prefix: string): Promise<number> {
  const { DeleteObjectsCommand, ListObjectsV2Command } = await import('@aws-sdk/client-s3');
  const client = await s3();
  let deleted = 0;
  let token: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }));
    const keys = (page.Contents ?? []).map((o) => ({ Key: o.Key! }));
    if (keys.length > 0) {
      const out = await client.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys, Quiet: true } }));
      if (out.Errors && out.Errors.length > 0) {
        throw new Error(`could not delete ${out.Errors.length} objects under ${prefix}: ${out.Errors[0]?.Message ?? 'unknown error'}`);
      }
      deleted += keys.length;
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return deleted;
}
