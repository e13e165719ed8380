import { observationsBench } from './observations';
process.env.BENCH_ONLY = 'upload';
await observationsBench();
process.exit(0);
