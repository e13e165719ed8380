/**
 * Bodies too large for a row, kept apart by the store (`store/port.ts`, `Bodies`; S3 in the
 * service). Objects are immutable (each write of a resource is a new key), so a row never points at
 * a half-written object: a write puts the object first and commits the row after; a refused commit
 * deletes the new object; the old version's object is deleted only once no row points at it. Until
 * then, and while it is written, an object is listed as pending (`pending-bodies.ts`).
 */

/**
 * Largest body kept inside the item (UTF-8 bytes of its JSON). DynamoDB items hold 400 KB with
 * their attribute names and the other fields; 350 KiB leaves room for those.
 */
export const INLINE_BODY_LIMIT = 350 * 1024;

export function isTooLargeForItem(json: string): boolean {
  return Buffer.byteLength(json, 'utf8') > INLINE_BODY_LIMIT;
}
