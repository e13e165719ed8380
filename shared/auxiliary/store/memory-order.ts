/** How the twin orders keys: as DynamoDB orders sort keys, by their UTF-8 bytes (not JavaScript's UTF-16 units). */
export const byKeyBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
