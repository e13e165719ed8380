/**
 * `npm run bench -- early-read`: what the early read (route access `'caller-early'`, shared/http/router.ts)
 * buys. The same requests through the FHIR handler as served and through one whose Observation reads
 * are plain `'caller'` routes (authenticate, then the handler), as interleaved pairs (each pair in
 * alternating order), on DynamoDB Local on disk; the answers must be byte for byte the same.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromResult, lambdaContext, toEvent } from '../local/api-gateway-event';
import { startRuntime } from '../local/runtime';
import { authenticator } from '../shared/auth/authenticate';
import { createRegistry, type FhirTypeChoices, type FhirTypeEntry } from '../shared/fhir/registry';
import { fhirRoutes } from '../shared/fhir/router';
import { createHandler, type LambdaHandler } from '../shared/http/handler';
import type { Access } from '../shared/http/router';
import { HOUR, postBatch, reading, world } from './observation-world';
import { median, percentile, printTable } from './table';

const RUNS = Number(process.env.BENCH_EARLY_READ_RUNS ?? 300);

type Registry = (typeof import('../functions/fhir/handler'))['registry'];

/** The served registry with every early read made a plain caller route. */
function withoutEarlyReads(registry: Registry): Registry {
  const plain = (access: Access): Access => (access.auth === 'caller-early' ? { auth: 'caller', handler: (req) => access.handler(req, undefined) } : access);
  const entries = [...registry.types.values()].map((entry): FhirTypeEntry => {
    if (entry.auth !== 'per-request') return entry;
    const handlers: FhirTypeChoices = {};
    for (const [k, choose] of Object.entries(entry.handlers)) (handlers as Record<string, unknown>)[k] = (...args: unknown[]) => plain((choose as (...a: unknown[]) => Access)(...args));
    return { ...entry, handlers };
  });
  return createRegistry(entries, { ...(registry.batch ? { batch: registry.batch } : {}), operations: registry.operations, instantiates: registry.instantiates });
}

async function send(handler: LambdaHandler, url: string, token: string) {
  const event = toEvent({ method: 'GET', url, headers: { host: 'localhost', authorization: `Bearer ${token}` } });
  const res = fromResult(await handler(event, lambdaContext('bench')));
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${res.body.toString().slice(0, 200)}`);
  return res;
}

export async function earlyReadBench(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  // Loaded here, not at the top: the handler's logger reads LOG_LEVEL when the module loads, and
  // bench/run.ts loads every benchmark's module before any of them runs.
  const { registry } = await import('../functions/fhir/handler');
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-early-read-'));
  const runtime = await startRuntime({ dataDir, port: 0, seed: false, inMemory: false });
  try {
    const w = await world();
    const target = await w.newPatientWithLogin();
    for (let i = 0; i < 10; i++) await postBatch(w, Array.from({ length: 100 }, (_, j) => reading(w, target.id, Date.UTC(2025, 0, 1) + (i * 100 + j) * 6 * HOUR)), '201 Created');
    const early = createHandler({ family: 'fhir', routes: fhirRoutes(registry), authenticator });
    const plain = createHandler({ family: 'fhir', routes: fhirRoutes(withoutEarlyReads(registry)), authenticator });
    const firstId = JSON.parse((await send(early, `/FHIR/R5/Observation?patient=${target.id}&_count=1`, w.practitioner)).body.toString()).entry[0].resource.id;
    const cases = [
      { caller: 'patient', token: target.token, what: 'first page, _count=20 (own data)', url: `/FHIR/R5/Observation?_count=20` },
      { caller: 'patient', token: target.token, what: 'month, _count=200', url: `/FHIR/R5/Observation?patient=${target.id}&date=2025-03&_count=200` },
      { caller: 'patient', token: target.token, what: 'read by id', url: `/FHIR/R5/Observation/${firstId}` },
      { caller: 'practitioner', token: w.practitioner, what: 'first page, _count=20', url: `/FHIR/R5/Observation?patient=${target.id}&_count=20` },
      { caller: 'practitioner', token: w.practitioner, what: 'month, _count=200', url: `/FHIR/R5/Observation?patient=${target.id}&date=2025-03&_count=200` },
    ];
    const rows = [];
    for (const c of cases) {
      const a = await send(early, c.url, c.token);
      const b = await send(plain, c.url, c.token);
      if (a.body.toString() !== b.body.toString()) throw new Error(`answers differ: ${c.url}`);
      for (let i = 0; i < 30; i++) await Promise.all([send(early, c.url, c.token), send(plain, c.url, c.token)]);
      const te: number[] = [];
      const tp: number[] = [];
      const ratios: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        // Pairs, alternating which goes first.
        const order = i % 2 === 0 ? [early, plain] : [plain, early];
        const times: number[] = [];
        for (const h of order) {
          const t0 = performance.now();
          await send(h, c.url, c.token);
          times.push(performance.now() - t0);
        }
        const [e, p] = i % 2 === 0 ? times : [times[1]!, times[0]!];
        te.push(e!);
        tp.push(p!);
        ratios.push(e! / p!);
      }
      rows.push({
        caller: c.caller,
        request: c.what,
        'early p50 ms': median(te).toFixed(2),
        'plain p50 ms': median(tp).toFixed(2),
        'early p99 ms': percentile(te, 99).toFixed(2),
        'plain p99 ms': percentile(tp, 99).toFixed(2),
        'early / plain (median of pair ratios)': median(ratios).toFixed(3),
      });
    }
    printTable(`Early read vs plain caller route, DynamoDB Local on disk, ${RUNS} interleaved pairs per request`, rows);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
