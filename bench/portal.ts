/**
 * The patient portal (`npm run bench -- portal`; `BENCH_PARTS=brands,pull` picks parts), against
 * `npm start`'s runtime (DynamoDB Local on disk):
 *
 * - brands: a generated directory of 50,000 facilities loaded with the operator's import, then
 *   `GET /api/v1/portal/brands` over HTTP with a mix of queries (target: p99 under 100 ms), next to
 *   the raw GetItem of the directory's head every search makes, and the in-memory search alone;
 * - pull: headless Chromium pulls a record of 1,000 resources across the types from the R4 SMART
 *   fixture through the portal pages and writes them through the R4 import. The page's own clock
 *   splits the time into hospital reads and service writes; the writes are compared with a direct
 *   import of the very same Bundles from Node (target: at most 1.5x).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRuntime, type Runtime } from '../local/runtime';
import { FIXTURE_HOSPITALS } from '../local/smart-fixture';
import { issueAccessToken } from '../shared/auth/tokens';
import { importBrands } from '../shared/brands/import';
import { buildIndex, searchIndex } from '../shared/brands/search';
import { brandStore } from '../shared/brands/store/current';
import { config } from '../shared/config';
import { listDataSources } from '../shared/directory/data-sources';
import { createFhirSource } from '../shared/directory/fhir-sources';
import { createPatient, createPatientAccount, getPatient } from '../shared/directory/patients';
import { getOAuthClient } from '../shared/directory/oauth-clients';
import { issueInvitation } from '../shared/oauth/invitations';
import { ensureServiceClients, PORTAL_CLIENT_ID } from '../shared/oauth/service-clients';
import { portalConfig, PORTAL_CALLBACK_PATH } from '../shared/portal/config';
import { chunksOf } from '../shared/lists';
import { IMPORT_CHUNK, importBundle, prepareForWrite } from '../shared/portal/records';
import { dynamo } from '../shared/store/clients';
import { brandsBundle, generatedBrands } from '../test/fixtures/brands-bundle';
import { OTHER_RECORDS } from '../test/fixtures/smart-records';
import { startSmartFixture, type SmartFixture } from '../test/fixtures/smart-server';
import { launchBrowser } from '../test/support/browser';
import { counts, phonePage, runPortal } from '../test/support/portal';
import { median, percentile, printTable, timeOnce } from './table';

const RESOURCES = Number(process.env.BENCH_PORTAL_COUNT ?? 1000);
const PAGE_SIZE = Number(process.env.BENCH_PORTAL_PAGE_SIZE ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const FACILITIES = Number(process.env.BENCH_BRANDS_FACILITIES ?? 50_000);
const SEARCHES = Number(process.env.BENCH_BRANDS_SEARCHES ?? 600);

/** A patient with a login and a token of theirs (the searches' caller, the direct import's writer). */
async function patientWithToken(name: string): Promise<{ patientId: number; token: string }> {
  const created = await createPatient({ nameFamily: name, nameGiven: 'Portal', telecomEmail: `${name.toLowerCase()}-${Date.now()}@example.test`, organizationIds: [1] });
  const account = await createPatientAccount(created.id, { email: `${name.toLowerCase()}-account-${Date.now()}@example.test` });
  const token = (await issueAccessToken({ userId: account.id, kind: 'patient', patientId: created.id, scope: 'openid', lifetimeSeconds: 3600 })).accessToken;
  return { patientId: created.id, token };
}

/** What patients type: names, cities (with and without accents), partial words, filters, and words that find nothing. */
const QUERIES = [
  'q=mercy',
  'q=valley%20health',
  'q=springfield',
  'q=sao%20paulo',
  'q=S%C3%A3o%20Paulo',
  'q=saint%20etienne',
  'q=lakeside%20medical%20center',
  'q=summit%20regional%20health%2042',
  'q=cedar',
  'q=ri',
  'q=children',
  'q=zurich&state=zh',
  'state=IL',
  'q=clinic&postal=627',
  'q=university&limit=100',
  'q=nothing%20like%20this',
];

async function brandsPart(runtime: Runtime): Promise<void> {
  const base = runtime.gateway!.url;
  const bundle = brandsBundle(generatedBrands(FACILITIES));
  const loadMs = await timeOnce(() => importBrands('bench', bundle));
  const head = (await brandStore().head())!;
  const { token } = await patientWithToken('Brands');
  const search = async (query: string) => {
    const res = await fetch(`${base}/api/v1/portal/brands?${query}`, { headers: { authorization: `Bearer ${token}` } });
    if (res.status !== 200) throw new Error(`brands search: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { results: unknown[] }).results.length;
  };
  // The first search of a process reads the version's chunks and builds the index.
  const firstMs = await timeOnce(() => search(QUERIES[0]!));
  const http: number[] = [];
  const raw: number[] = [];
  const getHead = () => dynamo().send(new GetCommand({ TableName: config().brandsTable, Key: { pk: 'HEAD', sk: 'HEAD' }, ConsistentRead: true }));
  for (let i = 0; i < SEARCHES; i += 1) {
    http.push(await timeOnce(() => search(QUERIES[i % QUERIES.length]!)));
    raw.push(await timeOnce(getHead));
  }
  const directory = (await brandStore().read(head.version))!;
  const indexMs = await timeOnce(async () => buildIndex(directory));
  const index = buildIndex(directory);
  const memory: number[] = [];
  for (let i = 0; i < SEARCHES; i += 1) {
    const params = new URLSearchParams(QUERIES[i % QUERIES.length]!);
    memory.push(await timeOnce(async () => searchIndex(index, { q: params.get('q') ?? '', state: params.get('state') ?? '', postal: params.get('postal') ?? '', limit: Number(params.get('limit') ?? 25) })));
  }
  const row = (what: string, times: number[]) => ({
    what,
    'p50 ms': median(times).toFixed(2),
    'p90 ms': percentile(times, 90).toFixed(2),
    'p99 ms': percentile(times, 99).toFixed(2),
    'max ms': Math.max(...times).toFixed(2),
  });
  printTable(
    `Brands: ${FACILITIES.toLocaleString('en-US')} facilities (${head.lists[0]!.brands.toLocaleString('en-US')} FHIR endpoints) loaded in ${(loadMs / 1000).toFixed(1)} s; first search of the process (chunks read, index built) ${firstMs.toFixed(0)} ms, the index alone ${indexMs.toFixed(0)} ms; ${SEARCHES} searches of ${QUERIES.length} kinds (target p99 < 100 ms)`,
    [row('GET /api/v1/portal/brands over HTTP (token checked, account read, head read, index searched)', http), row('raw GetItem of the head (every search makes one)', raw), row('the in-memory search alone', memory)],
  );
  console.log(`median ratio HTTP search / raw GetItem: ${(median(http) / median(raw)).toFixed(2)}`);
}

async function pullPart(runtime: Runtime, fixture: SmartFixture): Promise<void> {
  const browser = await launchBrowser();
  try {
    const base = runtime.gateway!.url;
    fixture.redirectUri = `${runtime.info.siteUrl}${PORTAL_CALLBACK_PATH}`;
    await ensureServiceClients();
    const client = (await getOAuthClient(PORTAL_CLIENT_ID))!;
    const app = (await listDataSources()).find((d) => d.type === 'patient_app')!;
    const rows = [];
    const ratios: number[] = [];
    // Round 0 warms both paths up (FHIRPath engine, JIT, the import's tables) and is not reported;
    // the order of the two paths alternates between rounds, as the machine's load drifts.
    for (let round = 0; round <= ROUNDS; round++) {
      const created = await createPatient({ nameFamily: `Bench${round}`, nameGiven: 'Portal', telecomEmail: `portal-bench-${round}-${Date.now()}@example.test`, organizationIds: [1] });
      fixture.patientId = `bench-${round}-${Date.now()}`;
      const { invitationLink } = await issueInvitation({ patient: created, client, sendEmail: false });

      // The portal in the browser: the hospital's pages, then the service's writes.
      const viaPortal = async () => {
        const { page } = await phonePage(browser);
        const started = performance.now();
        if ((await runPortal(page, invitationLink.replace(runtime.info.siteUrl!, base), fixture)) !== 'done') throw new Error(`round ${round}: ${await page.textContent('#problem-text')}`);
        const total = performance.now() - started;
        const shown = await counts(page);
        const readMs = Number(await page.getAttribute('body', 'data-read-ms'));
        const writeMs = Number(await page.getAttribute('body', 'data-write-ms'));
        await page.context().close();
        return { total, shown, readMs, writeMs };
      };

      // The same resources imported directly from Node in Bundles of 100, through another source of the same patient.
      const direct = async () => {
        const patient = (await getPatient(created.id))!;
        const userId = patient.userId ?? (await createPatientAccount(patient.id, { email: `direct-${created.id}@example.test` })).id;
        const token = (await issueAccessToken({ userId, kind: 'patient', patientId: patient.id, scope: 'openid', lifetimeSeconds: 3600 })).accessToken;
        const source = await createFhirSource({ patientId: patient.id, dataSourceId: app.id, label: 'bench', fhirBaseUrl: fixture.iss });
        const prepared = await Promise.all(fixture.records.map((r) => prepareForWrite(JSON.parse(JSON.stringify(r).replaceAll('smart-pat-1', fixture.patientId)), fixture.iss)));
        const directStart = performance.now();
        for (const chunk of chunksOf(prepared, IMPORT_CHUNK)) {
          const res = await fetch(`${base}/fhir-import/R4`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/fhir+json', 'x-svc-fhir-source-id': String(source.id) },
            body: JSON.stringify(importBundle(chunk)),
          });
          if (res.status !== 200) throw new Error(`direct import: ${res.status} ${await res.text()}`);
          await res.arrayBuffer();
        }
        return performance.now() - directStart;
      };

      let portal: Awaited<ReturnType<typeof viaPortal>>;
      let directMs: number;
      if (round % 2 === 1) {
        portal = await viaPortal();
        directMs = await direct();
      } else {
        directMs = await direct();
        portal = await viaPortal();
      }
      if (round === 0) continue;
      const { total, shown, readMs, writeMs } = portal;
      ratios.push(writeMs / directMs);
      rows.push({
        round,
        'stored / lossy / failed': `${shown.stored} / ${shown.storedWithLoss} / ${shown.failed}`,
        'end to end s': (total / 1000).toFixed(2),
        'hospital reads s': (readMs / 1000).toFixed(2),
        'service writes s': (writeMs / 1000).toFixed(2),
        'direct import s': (directMs / 1000).toFixed(2),
        'writes / direct': (writeMs / directMs).toFixed(2),
      });
    }
    const kinds = new Set(fixture.records.map((r) => r.resourceType)).size;
    printTable(
      `Portal: a record of ${fixture.records.length} resources of ${kinds} types (R4, ${PAGE_SIZE} a page, Observations by category) in headless Chromium, written through the R4 import in Bundles of ${IMPORT_CHUNK}; median writes / direct = ${median(ratios).toFixed(2)} (target <= 1.5)`,
      rows,
    );
  } finally {
    await browser.close();
  }
}

export async function portalBench(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  const parts = new Set((process.env.BENCH_PARTS ?? 'brands,pull').split(','));
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-portal-'));
  // A record of RESOURCES resources: copies of the records of every other type make about 45% of it, laboratory results the rest.
  const copies = Math.max(1, Math.floor((RESOURCES * 0.45) / OTHER_RECORDS.perCopy));
  const labs = Math.max(3, RESOURCES - OTHER_RECORDS.vitalSigns - copies * OTHER_RECORDS.perCopy);
  const fixture = await startSmartFixture({ ...FIXTURE_HOSPITALS.R4, count: labs, copies, pageSize: PAGE_SIZE });
  const runtime = await startRuntime({ dataDir, port: 0, portal: portalConfig({ iss: fixture.iss, clientId: fixture.clientId }) });
  try {
    if (parts.has('brands')) await brandsPart(runtime);
    if (parts.has('pull')) await pullPart(runtime, fixture);
  } finally {
    await runtime.stop();
    await fixture.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
