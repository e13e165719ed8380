/**
 * The R4 import, two ways:
 *
 * - CPU, no store: the standard's R4 examples (conformance resources aside) through conversion,
 *   loss detection and R5 validation, warm, one core: resources per second (target 1,000).
 * - The endpoint against a direct R5 write of the same converted resources, interleaved in one run
 *   (DynamoDB Local in memory): `POST /fhir-import/R4` with a Bundle of 100 R4 resources of the
 *   stored types vs `POST /FHIR/R5/` with a batch of the same 100 resources as the converter
 *   makes them, both through their Lambda handlers in process (target: at most 1.3x).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromResult, lambdaContext, toEvent } from '../local/api-gateway-event';
import { loadHandlers } from '../local/handlers';
import { startRuntime } from '../local/runtime';
import { issueAccessToken } from '../shared/auth/tokens';
import { createDataSource } from '../shared/directory/data-sources';
import { createFhirSource } from '../shared/directory/fhir-sources';
import { createOrganization } from '../shared/directory/organizations';
import { createPatient } from '../shared/directory/patients';
import { SOURCE_HEADER } from '../shared/fhir/constants';
import { loadFhirPath } from '../shared/fhir/fhirpath';
import { validateResource } from '../shared/fhir/validation';
import type { LambdaHandler } from '../shared/http/handler';
import { convertR4, convertR4Resource } from '../shared/r4-import/convert';
import { lossReport } from '../shared/r4-import/loss';
import { importExample, r4Corpus } from '../test/support/r4-corpus';
import { interleaved, median, percentile, printTable, timeOnce } from './table';

const ROUNDS = Number(process.env.BENCH_IMPORT_ROUNDS ?? 5);
const HTTP_RUNS = Number(process.env.BENCH_IMPORT_RUNS ?? 20);
const BUNDLE_SIZE = 100;

type Json = Record<string, any>;

async function cpuPart(): Promise<void> {
  const corpus = r4Corpus();
  await loadFhirPath();
  for (const example of corpus) await importExample(example); // warm: tables read, expressions compiled
  const all: number[] = [];
  const convertOnly: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    all.push(await timeOnce(async () => {
      for (const { resource } of corpus) {
        const conversion = convertR4(resource);
        if (!conversion) continue;
        lossReport(resource, conversion);
        await validateResource(conversion.resource, { expectedType: resource.resourceType });
      }
    }));
    convertOnly.push(await timeOnce(async () => {
      for (const { resource } of corpus) {
        const conversion = convertR4(resource);
        if (conversion) lossReport(resource, conversion);
      }
    }));
  }
  const perSecond = (ms: number) => Math.round((corpus.length * 1000) / ms).toLocaleString('en-US');
  printTable(`R4 corpus, ${corpus.length} resources, warm, median of ${ROUNDS} rounds`, [
    { pipeline: 'convert + loss detection + R5 validation', 'ms per round': median(all).toFixed(0), 'resources/s': perSecond(median(all)), 'µs/resource': ((median(all) * 1000) / corpus.length).toFixed(0) },
    { pipeline: 'convert + loss detection', 'ms per round': median(convertOnly).toFixed(0), 'resources/s': perSecond(median(convertOnly)), 'µs/resource': ((median(convertOnly) * 1000) / corpus.length).toFixed(0) },
  ]);
}

/** Examples of the stored types that import valid, without their ids (each round creates new rows). */
async function storedExamples(): Promise<Json[]> {
  const out: Json[] = [];
  for (const example of r4Corpus()) {
    const result = await importExample(example);
    if (!result.accepted || result.outcome === 'failed' || result.type === 'Observation') continue;
    const { id: _id, ...resource } = example.resource;
    out.push(resource);
  }
  return out;
}

async function httpPart(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-import-'));
  const runtime = await startRuntime({ dataDir, gateway: false, seed: false, inMemory: true });
  try {
    const handlers = await loadHandlers();
    const org = await createOrganization({ name: 'Bench', type: 'prov' });
    const patient = await createPatient({ nameFamily: 'Bench', nameGiven: 'Imp', telecomEmail: 'bench-import@example.test', organizationIds: [org.id], account: {} });
    const device = await createDataSource({ name: 'EHR app', type: 'patient_app' });
    const source = await createFhirSource({ patientId: patient.id, dataSourceId: device.id });
    const { accessToken } = await issueAccessToken({ userId: patient.userId!, kind: 'patient', patientId: patient.id, scope: 'openid', lifetimeSeconds: 3600 });

    const examples = await storedExamples();
    const r4 = Array.from({ length: BUNDLE_SIZE }, (_, i) => examples[i % examples.length]!);
    const r5 = r4.map((r) => convertR4Resource(r)!);
    const send = async (handler: LambdaHandler, url: string, body: unknown) => {
      const headers = { host: 'localhost', authorization: `Bearer ${accessToken}`, 'content-type': 'application/fhir+json', [SOURCE_HEADER]: String(source.id) };
      const res = fromResult(await handler(toEvent({ method: 'POST', url, headers, body: JSON.stringify(body) }), lambdaContext('bench')));
      if (res.status !== 200) throw new Error(`${url}: ${res.status} ${res.body.toString('utf8').slice(0, 300)}`);
      const entries = JSON.parse(res.body.toString('utf8')).entry as Json[];
      const failed = entries.filter((e) => !e.response.status.startsWith('201'));
      if (failed.length > 0) throw new Error(`${url}: ${failed.length} entries failed: ${JSON.stringify(failed[0])}`);
    };
    const imported = () => send(handlers['fhir-import'], '/fhir-import/R4', { resourceType: 'Bundle', type: 'batch', entry: r4.map((resource) => ({ resource })) });
    const direct = () => send(handlers.fhir, '/FHIR/R5/', { resourceType: 'Bundle', type: 'batch', entry: r5.map((resource) => ({ resource, request: { method: 'POST', url: resource.resourceType } })) });

    const [a, b] = await interleaved(imported, direct, HTTP_RUNS, 3);
    const row = (what: string, times: number[]) => ({
      request: what,
      'p50 ms': median(times).toFixed(0),
      'p90 ms': percentile(times, 90).toFixed(0),
      'resources/s (p50)': Math.round((BUNDLE_SIZE * 1000) / median(times)).toLocaleString('en-US'),
    });
    printTable(`Import endpoint vs direct R5 write, Bundles of ${BUNDLE_SIZE} (${new Set(r4.map((r) => r.resourceType)).size} types), ${HTTP_RUNS} interleaved runs`, [
      row('POST /fhir-import/R4 (R4 Bundle)', a),
      row('POST /FHIR/R5/ (batch of the converted resources)', b),
    ]);
    console.log(`\nratio import / direct (p50): ${(median(a) / median(b)).toFixed(2)}`);
  } finally {
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function importBench(): Promise<void> {
  const parts = new Set((process.env.BENCH_PARTS ?? 'cpu,http').split(','));
  if (parts.has('cpu')) await cpuPart();
  if (parts.has('http')) await httpPart();
}
