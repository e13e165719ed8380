/** The in-memory twin of the bodies bucket: objects by key. */
import { randomBytes } from 'node:crypto';
import { holding } from '../../store/memory';
import { bodyKeys } from './dynamo-keys';
import type { Bodies } from './port';

/** What S3 answers for a key it does not hold (the SDK's error name). */
const noSuchKey = (key: string) => Object.assign(new Error(`The specified key does not exist: ${key}`), { name: 'NoSuchKey' });

export function memoryBodies(): Bodies {
  const objects = new Map<string, string>();
  const bodies: Bodies = {
    newKey: (head) => bodyKeys.object(head.patientId, head.sourceId, head.id, head.version, randomBytes(6).toString('base64url')),
    put: async (key, json) => void objects.set(key, json),
    get: async (key) => {
      const json = objects.get(key);
      if (json === undefined) throw noSuchKey(key);
      return json;
    },
    remove: async (key) => void objects.delete(key),
    removeAll: async (segment) => {
      const doomed = [...objects.keys()].filter((key) => key.startsWith(bodyKeys.ofSegment(segment)));
      doomed.forEach((key) => objects.delete(key));
      return doomed.length;
    },
  };
  return holding(bodies, { objects: () => objects });
}
