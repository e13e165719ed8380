/** Small helpers shared by the benchmarks: percentiles and a plain-text table. */

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

/** The middle value, or the mean of the two middle ones (of two rounds, their mean, not the lower). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
}

/** Milliseconds one call of `op` takes. */
export async function timeOnce(op: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await op();
  return performance.now() - t0;
}

/**
 * Times two operations alternately (after a warm-up of each), so machine noise hits both alike:
 * the times of ours, then of the other.
 */
export async function interleaved(ours: () => Promise<unknown>, other: () => Promise<unknown>, runs: number, warmUp = Math.min(30, runs)): Promise<[number[], number[]]> {
  for (let i = 0; i < warmUp; i += 1) {
    await ours();
    await other();
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    a.push(await timeOnce(ours));
    b.push(await timeOnce(other));
  }
  return [a, b];
}

export function printTable(title: string, rows: ReadonlyArray<Record<string, string | number>>): void {
  if (rows.length === 0) return;
  const headers = Object.keys(rows[0]!);
  const widths = headers.map((h) => Math.max(h.length, ...rows.map((r) => String(r[h]).length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(`\n${title}\n`);
  console.log(line(headers));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const row of rows) console.log(line(headers.map((h) => String(row[h]))));
}

/**
 * Times several operations in turn (after a warm-up of each), the first of a run rotating, so
 * machine noise and a warmer engine fall on each alike: the times of each, in the order given.
 */
export async function rotated(ops: ReadonlyArray<() => Promise<unknown>>, runs: number, warmUp = Math.min(30, runs)): Promise<number[][]> {
  for (let i = 0; i < warmUp; i += 1) for (const op of ops) await op();
  const times = ops.map(() => [] as number[]);
  for (let i = 0; i < runs; i += 1) {
    for (let k = 0; k < ops.length; k += 1) {
      const at = (i + k) % ops.length;
      times[at]!.push(await timeOnce(ops[at]!));
    }
  }
  return times;
}
