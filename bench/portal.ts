/**
 * The patient portal end to end (`npm run bench -- portal`): headless Chromium pulls 1,000 lab
 * Observations from the R4 SMART fixture through the portal pages and writes them through the R4
 * import, against `npm start`'s runtime (DynamoDB Local on disk). The page's own clock splits the
 * time into hospital reads and service writes; the writes are compared with a direct import of the
 * very same Bundles from Node (target: at most 1.5x).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRuntime } from '../local/runtime';
import { issueAccessToken } from '../shared/auth/tokens';
import { listDataSources } from '../shared/directory/data-sources';
import { createFhirSource } from '../shared/directory/fhir-sources';
import { createPatient, createPatientAccount, getPatient } from '../shared/directory/patients';
import { getOAuthClient } from '../shared/directory/oauth-clients';
import { issueInvitation } from '../shared/oauth/invitations';
import { ensureServiceClients, PORTAL_CLIENT_ID } from '../shared/oauth/service-clients';
import { portalConfig, PORTAL_CALLBACK_PATH } from '../shared/portal/config';
import { chunksOf } from '../shared/lists';
import { IMPORT_CHUNK, importBundle, prepareForWrite } from '../shared/portal/records';
import { startSmartFixture } from '../test/fixtures/smart-server';
import { launchBrowser } from '../test/support/browser';
import { counts, phonePage, runPortal } from '../test/support/portal';
import { median, printTable } from './table';

const COUNT = Number(process.env.BENCH_PORTAL_COUNT ?? 1000);
const PAGE_SIZE = Number(process.env.BENCH_PORTAL_PAGE_SIZE ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

export async function portalBench(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  const dataDir = mkdtempSync(join(tmpdir(), 'cdx-bench-portal-'));
  const fixture = await startSmartFixture({ mode: 'R4', count: COUNT, pageSize: PAGE_SIZE });
  const runtime = await startRuntime({ dataDir, port: 0, portal: portalConfig({ iss: fixture.iss, clientId: fixture.clientId }) });
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

      // The same Bundles imported directly from Node, through another source of the same patient.
      const direct = async () => {
        const patient = (await getPatient(created.id))!;
        const userId = patient.userId ?? (await createPatientAccount(patient.id, { email: `direct-${created.id}@example.test` })).id;
        const token = (await issueAccessToken({ userId, kind: 'patient', patientId: patient.id, scope: 'openid', lifetimeSeconds: 3600 })).accessToken;
        const source = await createFhirSource({ patientId: patient.id, dataSourceId: app.id, label: 'bench', fhirBaseUrl: fixture.iss });
        const prepared = await Promise.all(fixture.observations.map((o) => prepareForWrite({ ...(o as { resourceType: string }), subject: { reference: `Patient/${fixture.patientId}` } }, fixture.iss)));
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
    printTable(
      `Portal: ${COUNT} lab Observations (R4, ${PAGE_SIZE} a page) in headless Chromium, written through the R4 import in Bundles of ${IMPORT_CHUNK}; median writes / direct = ${median(ratios).toFixed(2)} (target <= 1.5)`,
      rows,
    );
  } finally {
    await browser.close();
    await runtime.stop();
    await fixture.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
