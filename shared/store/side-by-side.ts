/**
 * Work run side by side (the segments of a Scan, the lanes of a move), where one part that fails
 * stops the others at their next step: nothing runs on once the call has failed, so a resumed run
 * never races the one that stopped.
 */
export async function sideBySide<T>(parts: readonly T[], work: (part: T, index: number, stopped: () => boolean) => Promise<void>): Promise<void> {
  let failed = false;
  const settled = await Promise.allSettled(
    parts.map(async (part, index) => {
      try {
        await work(part, index, () => failed);
      } catch (e) {
        failed = true;
        throw e;
      }
    }),
  );
  const failure = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failure) throw failure.reason;
}
