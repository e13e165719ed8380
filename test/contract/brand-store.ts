/**
 * THE contract of the brands store port (shared/brands/store/port.ts), run against every adapter:
 * publication from the version read, the head naming the lists, the previous version kept readable
 * and the one before it retired, and a directory larger than one DynamoDB item round-tripping.
 *
 * The DynamoDB adapter's table is shared by the file's tests (they run in order): each test starts
 * from the head it finds, and the first one runs on the empty table.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { BrandDirectory, BrandList } from '../../shared/brands/model';
import type { BrandStore } from '../../shared/brands/store/port';

export type BrandAdapter = [name: string, make: () => BrandStore];

const NOW = '2026-03-01T10:00:00.000Z';

function listOf(name: string, facilities = 2, filler: (i: number) => string = () => ''): BrandList {
  return {
    name,
    timestamp: '2026-02-01T00:00:00Z',
    importedAt: NOW,
    digest: randomBytes(8).toString('hex'),
    entries: [
      {
        fhirBaseUrl: `https://${name}.example/fhir`,
        fhirVersion: '4.0.1',
        facilities: Array.from({ length: facilities }, (_, i) => ({ name: `${name} clinic ${i}${filler(i)}`, brandName: name, addresses: [{ text: `${i} Main St, Springfield, IL 62701`, city: 'Springfield', state: 'IL', postalCode: '62701' }] })),
      },
    ],
  };
}

export function brandStoreContract(adapters: readonly BrandAdapter[]): void {
  describe.each(adapters)('brands store on %s', (_name, make) => {
    const store = make();

    it('has no head before the first publication, and publishes only onto nothing then', async () => {
      expect(await store.head()).toBeUndefined();
      expect(await store.publish({ lists: [listOf('first')] }, 'some-version', NOW)).toBe(false);
      expect(await store.head()).toBeUndefined();
      const head = await store.publish({ lists: [listOf('first')] }, undefined, NOW);
      expect(head && head.lists.map((l) => l.name)).toEqual(['first']);
    });

    it('publishes from the version read, and names the lists with their counts in the head', async () => {
      const before = (await store.head())!;
      const directory: BrandDirectory = { lists: [listOf('alpha', 3), listOf('beta', 1)] };
      const head = await store.publish(directory, before.version, NOW);
      expect(head).not.toBe(false);
      if (!head) return;
      expect(head.version).not.toBe(before.version);
      expect(await store.head()).toEqual(head);
      expect(head.publishedAt).toBe(NOW);
      expect(head.lists).toEqual([
        { name: 'alpha', timestamp: '2026-02-01T00:00:00Z', importedAt: NOW, digest: directory.lists[0]!.digest, brands: 1, facilities: 3 },
        { name: 'beta', timestamp: '2026-02-01T00:00:00Z', importedAt: NOW, digest: directory.lists[1]!.digest, brands: 1, facilities: 1 },
      ]);
      expect(await store.read(head.version)).toEqual(directory);
    });

    it('refuses a publication from a version that is no longer the head, changing nothing', async () => {
      const before = (await store.head())!;
      const won = await store.publish({ lists: [listOf('winner')] }, before.version, NOW);
      expect(won).not.toBe(false);
      expect(await store.publish({ lists: [listOf('loser')] }, before.version, NOW)).toBe(false);
      expect(await store.head()).toEqual(won);
      expect((await store.read((won as { version: string }).version))!.lists.map((l) => l.name)).toEqual(['winner']);
    });

    it('keeps the previous version readable and retires the one before it', async () => {
      const first = (await store.head())!;
      const second = (await store.publish({ lists: [listOf('second')] }, first.version, NOW)) as { version: string };
      const third = (await store.publish({ lists: [listOf('third')] }, second.version, NOW)) as { version: string };
      expect((await store.read(third.version))!.lists[0]!.name).toBe('third');
      expect((await store.read(second.version))!.lists[0]!.name).toBe('second');
      expect(await store.read(first.version)).toBeUndefined();
      expect(await store.read('never-published')).toBeUndefined();
    });

    it('round-trips a directory larger than one item (several chunks)', async () => {
      const before = (await store.head())!;
      // Random text does not compress: some 1.3 MB of it needs four chunks of 350,000 bytes.
      const big: BrandDirectory = { lists: [listOf('big', 1000, () => ` ${randomBytes(1000).toString('base64')}`)] };
      const head = (await store.publish(big, before.version, NOW)) as { version: string };
      expect(await store.read(head.version)).toEqual(big);
    });
  });
}
