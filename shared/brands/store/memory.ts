/**
 * The brands store port in memory: a twin of the DynamoDB adapter for tests that need no tables,
 * held to the same behaviour by test/contract/brand-store.ts. It keeps the head and, as the
 * adapter does, the published version and the one before it. Each call makes a new, empty store.
 */
import { randomBytes } from 'node:crypto';
import { copy, holding } from '../../store/memory';
import { summaryOf, type BrandDirectory, type DirectoryHead } from '../model';
import type { BrandStore } from './port';

export function memoryBrandStore(): BrandStore {
  let head: DirectoryHead | undefined;
  /** The published version and the one before it. */
  const versions = new Map<string, BrandDirectory>();
  let serial = 0;
  const store: BrandStore = {
    head: async () => head && copy(head),
    read: async (version) => {
      const directory = versions.get(version);
      return directory && copy(directory);
    },
    publish: async (next, expected, publishedAt) => {
      if (head?.version !== expected) return false;
      const version = `${String(++serial).padStart(9, '0')}-${randomBytes(4).toString('hex')}`;
      for (const kept of versions.keys()) if (kept !== head?.version) versions.delete(kept);
      versions.set(version, copy(next));
      head = { version, publishedAt, lists: next.lists.map(summaryOf) };
      return copy(head);
    },
  };
  return holding(store, { head: () => (head ? [['HEAD', head]] : []), versions: () => versions });
}
