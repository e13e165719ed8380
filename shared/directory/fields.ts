/**
 * What the directory checks of a field before it is stored, and the time it stamps records with.
 */
import { fieldErrors } from '../http/errors';

/** Longest free text allowed inside a key (DynamoDB allows 2048 bytes for a partition key). */
export const MAX_KEY_TEXT = 512;

/** Refuses text that cannot be part of a key (empty, or so long the store would reject it). */
export function assertKeyText(field: string, value: string): void {
  if (value.length === 0) throw fieldErrors({ [field]: ['This field may not be blank.'] });
  if (Buffer.byteLength(value, 'utf8') > MAX_KEY_TEXT) {
    throw fieldErrors({ [field]: [`Ensure this field has no more than ${MAX_KEY_TEXT} bytes.`] });
  }
}

/** Current time as the directory stores it. */
export function now(): string {
  return new Date().toISOString();
}
