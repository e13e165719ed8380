/**
 * DynamoDB's limit on a partition key value. Keys built from client text (identifiers, upstream
 * ids) can exceed it: such text can be no item's key, so a lookup by it finds nothing, and a write
 * of it is the client's 400. Sent as it is, DynamoDB would refuse the request, which the service
 * would answer as its own failure.
 */
export const MAX_PARTITION_KEY_BYTES = 2048;

export function fitsPartitionKey(pk: string): boolean {
  return Buffer.byteLength(pk, 'utf8') <= MAX_PARTITION_KEY_BYTES;
}
