/**
 * A part's files when two writers add to one type at once (a part's readings and its auxiliary
 * Observations): files close and the next begins as they fill, each upload taking a while, and
 * every line still lands in exactly one file that is closed once, with the counts the manifest gives.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PartFiles } from '../../../shared/export/part-files';
import { exportStore, useExportStore } from '../../../shared/export/store/current';
import { memoryExportStore } from '../../../shared/export/store/memory';
import type { FileWriter } from '../../../shared/export/store/port';

const previous = exportStore;
let restore: (() => void) | undefined;
afterEach(() => restore?.());

/** Files as written: their text, and how often each was closed; a close takes a few milliseconds, as an upload does. */
function slowFiles() {
  const written = new Map<string, { text: string; closes: number }>();
  const store = memoryExportStore();
  const before = previous();
  useExportStore({
    ...store,
    files: {
      ...store.files,
      open: (_jobId, name): FileWriter => {
        const file = { text: '', closes: 0 };
        written.set(name, file);
        return {
          write: async (text) => void (file.text += text),
          close: async () => {
            await new Promise((done) => setTimeout(done, 3));
            file.closes += 1;
          },
          abort: async () => undefined,
        };
      },
    },
  });
  restore = () => useExportStore(before);
  return written;
}

const lines = (tag: string, n: number) => Array.from({ length: n }, (_, i) => JSON.stringify({ resourceType: 'Observation', id: `${tag}${i}` }));

describe('PartFiles', () => {
  it('puts every line of two writers of one type in exactly one closed file, none over the size', async () => {
    const written = slowFiles();
    const files = new PartFiles('job', 1, 300);
    const batches = ['a', 'b', 'c'].map((tag) => lines(tag, 60));
    // Each writer adds its lines in runs, as the readings do, beside the other.
    await Promise.all(
      batches.map(async (batch) => {
        for (let at = 0; at < batch.length; at += 7) await files.addJson('Observation', batch.slice(at, at + 7));
      }),
    );
    const manifest = await files.close();
    const landed = [...written.values()].flatMap((f) => f.text.split('\n').filter((l) => l !== ''));
    expect(landed.sort()).toEqual(batches.flat().sort());
    expect([...written.values()].every((f) => f.closes === 1)).toBe(true);
    expect(manifest.map((f) => f.name).sort()).toEqual([...written.keys()].sort());
    for (const f of manifest) {
      const text = written.get(f.name)!.text;
      expect(f.count).toBe(text.split('\n').length - 1);
      expect(f.bytes).toBe(Buffer.byteLength(text));
      expect(f.bytes).toBeLessThanOrEqual(300);
    }
  });
});
