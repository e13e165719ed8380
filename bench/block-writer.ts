/**
 * One device's uploads in a process of its own, as one Lambda instance serves them (part of
 * `npm run bench -- observations`, `BENCH_PARTS=writers`): started by bench/observations.ts with
 * the engines' endpoints in its environment and its device in `BENCH_WRITER` (JSON: token, patient,
 * device, first instant, readings), it loads the FHIR handler, says `ready`, waits for a line on
 * its standard input, then uploads minute heart rates in batches of 100 one after another, while
 * a middleware on the DynamoDB client counts the block puts and those refused by their version
 * condition (another process wrote the stretch first: the write path reads it again and retries).
 * Prints `{ms, created, unfinished, blockPuts, refused}` as JSON.
 */
import { createInterface } from 'node:readline';
import { chunksOf } from '../shared/lists';
import { dynamo } from '../shared/store/clients';
import { config } from '../shared/config';
import { invoke, batch, reading, type World } from './observation-world';

const MINUTE = 60_000;
const BATCH = 100;

interface Writer {
  token: string;
  patientId: number;
  deviceId: number;
  from: number;
  readings: number;
}

const writer = JSON.parse(process.env.BENCH_WRITER ?? '{}') as Writer;
const counts = { blockPuts: 0, refused: 0 };
dynamo().middlewareStack.add(
  (next, context) => async (args) => {
    const input = args.input as { TableName?: string; Item?: { sk?: string | { S?: string } } };
    // At this step the document client may have marshalled the item already: take either form.
    const sk = input.Item?.sk;
    const blockPut = context.commandName === 'PutItemCommand' && input.TableName === config().observationsTable && String(typeof sk === 'object' ? sk.S : sk).startsWith('B#');
    if (blockPut) counts.blockPuts += 1;
    try {
      return await next(args);
    } catch (e) {
      if (blockPut && (e as Error).name === 'ConditionalCheckFailedException') counts.refused += 1;
      throw e;
    }
  },
  { step: 'build', name: 'benchBlockPuts' },
);

// The device as the bench's readings name it: only its data source matters here.
const device = { device: writer.deviceId } as World;
// A first call loads the handler and warms the process (its answer does not matter).
await invoke('GET', `/FHIR/R5/Observation?patient=${writer.patientId}&_count=1`, writer.token);
console.log('ready');
await new Promise<void>((go) => createInterface({ input: process.stdin }).once('line', () => go()));

let created = 0;
let unfinished = 0;
const started = performance.now();
for (const chunk of chunksOf(Array.from({ length: writer.readings }, (_, i) => writer.from + i * MINUTE), BATCH)) {
  const res = await invoke('POST', '/FHIR/R5', writer.token, batch(chunk.map((at) => reading(device, writer.patientId, at))));
  if (res.status !== 200) throw new Error(`upload answered ${res.status}: ${JSON.stringify(res.json).slice(0, 300)}`);
  for (const e of res.json.entry as Array<{ response: { status: string } }>) {
    if (e.response.status === '201 Created') created += 1;
    else unfinished += 1;
  }
}
console.log(JSON.stringify({ ms: performance.now() - started, created, unfinished, ...counts }));
process.exit(0);
