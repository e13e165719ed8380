import { observationsBench } from './observations';
process.env.BENCH_ONLY = 'search';
await observationsBench();
process.exit(0);
