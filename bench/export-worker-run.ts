/**
 * One export job run by the worker alone, in a process of its own, for its peak memory: the job's
 * messages (fan-out, then every part, one at a time) handled inline as the worker Lambda handles
 * them, while the process's resident memory and heap are sampled. Started by bench/export.ts with
 * the engines' endpoints and the table prefix in its environment; prints `{rss, heap, ms}` as JSON.
 */
import { exportStore, useExportStore } from '../shared/export/store/current';
import type { ExportMessage } from '../shared/export/model';
import { handleMessage } from '../shared/export/worker';

const jobId = process.argv[2]!;
const waiting: ExportMessage[] = [{ kind: 'start', jobId }];
useExportStore({ ...exportStore(), queue: { send: async (messages) => void waiting.push(...messages) } });

let rss = 0;
let heap = 0;
const sample = () => {
  const m = process.memoryUsage();
  rss = Math.max(rss, m.rss);
  heap = Math.max(heap, m.heapUsed + m.arrayBuffers);
};
const sampler = setInterval(sample, 10);
const started = performance.now();
while (waiting.length > 0) await handleMessage(waiting.shift()!, 3);
const ms = performance.now() - started;
clearInterval(sampler);
sample();
const job = await exportStore().jobs.get(jobId);
if (job?.status !== 'complete') throw new Error(`job ${jobId} ended ${job?.status}`);
console.log(JSON.stringify({ rss, heap, ms }));
process.exit(0);
