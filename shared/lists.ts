/** Small list helpers with no dependencies, for the server and the portal's browser script alike. */

/** `items` in consecutive slices of at most `size`. */
export function chunksOf<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}
