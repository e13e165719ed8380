/**
 * The bodies in S3, the service adapter's bucket beside its table. Objects are written once (each
 * write of a resource is a new key), under a prefix per patient and source, so a segment's bodies
 * go in one sweep by prefix.
 */
import { randomBytes } from 'node:crypto';
import { config } from '../../config';
import { s3 } from '../../store/clients';
import { deleteObjectsUnder } from '../../store/objects';
import { bodyKeys } from './dynamo-keys';
import type { Bodies } from './port';

/** The S3 SDK, loaded with the client on first use (see `s3()`). */
const sdk = () => import('@aws-sdk/client-s3');

export const bodies: Bodies = {
  newKey: (head) => bodyKeys.object(head.patientId, head.sourceId, head.id, head.version, randomBytes(6).toString('base64url')),
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
  removeAll: (segment) => deleteObjectsUnder(config().auxBucket, bodyKeys.ofSegment(segment)),
};
