/**
 * Read-only work that reads each patient record once (shared/directory/read-once.ts), on the
 * directory's in-memory twin: within it `getPatient` and `getPatients` share their reads (in flight
 * too), each reader gets its own copy, and outside it (or in another run) every call reads again.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createOrganization } from '../../../shared/directory/organizations';
import { createPatient, getPatient, getPatients } from '../../../shared/directory/patients';
import { readingPatientsOnce } from '../../../shared/directory/read-once';
import { directoryStore, useDirectoryStore } from '../../../shared/directory/store/current';
import { memoryDirectoryStore } from '../../../shared/directory/store/memory';

const previous = useDirectoryStore(memoryDirectoryStore());
afterAll(() => void useDirectoryStore(previous));

async function twoPatients() {
  const org = await createOrganization({ name: 'Read once', type: 'prov' });
  const one = await createPatient({ nameFamily: 'One', organizationIds: [org.id] });
  const two = await createPatient({ nameFamily: 'Two', organizationIds: [org.id] });
  return { one, two };
}

function countedReads() {
  const { patients } = directoryStore();
  return { get: vi.spyOn(patients, 'get'), getMany: vi.spyOn(patients, 'getMany') };
}

describe('readingPatientsOnce', () => {
  it('reads a record once for getPatient and getPatients alike, in flight or done; unknown ids stay unknown', async () => {
    const { one, two } = await twoPatients();
    const reads = countedReads();
    try {
      const [single, many] = await readingPatientsOnce(async () => {
        // Side by side, as a tool's visibility check and its search's scope run.
        const both = await Promise.all([getPatient(one.id), getPatients([one.id, 999_999, two.id])]);
        const again = await getPatients([two.id, one.id]);
        expect(again.map((p) => p.nameFamily)).toEqual(['Two', 'One']);
        expect(await getPatient(999_999)).toBeUndefined();
        return both;
      });
      expect(single?.nameFamily).toBe('One');
      expect(many.map((p) => p.id)).toEqual([one.id, two.id]);
      expect(reads.get).toHaveBeenCalledTimes(1);
      expect(reads.getMany).toHaveBeenCalledTimes(1);
      expect(reads.getMany.mock.calls[0]![0]).toEqual([999_999, two.id]);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it("gives each reader its own copy, and reads again outside the work or in another one", async () => {
    const { one } = await twoPatients();
    await readingPatientsOnce(async () => {
      const first = await getPatient(one.id);
      first!.nameFamily = 'Changed by a reader';
      expect((await getPatient(one.id))?.nameFamily).toBe('One');
    });
    const reads = countedReads();
    try {
      await getPatient(one.id);
      await getPatient(one.id);
      await readingPatientsOnce(() => getPatient(one.id));
      await readingPatientsOnce(() => getPatient(one.id));
      expect(reads.get).toHaveBeenCalledTimes(4);
    } finally {
      vi.restoreAllMocks();
    }
  });
});
