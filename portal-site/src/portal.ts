/**
 * The patient portal (docs/portal.md), one script for its pages:
 * - the connect page (`/clients/portal/?code=<host>_<token>`) redeems the invitation, gets the
 *   service token, and starts the SMART standalone patient launch: at the configured hospital, or,
 *   with none configured, at the one the patient picks from the brands directory;
 * - the callback page (`/clients/portal/callback`) finishes the launch, stores the identifier,
 *   registers a FHIR Source, reads the patient's whole record kind by kind (shared/portal/pulls.ts)
 *   and writes it: through the R4 import in Bundles of 100 when the hospital speaks R4, else one by
 *   one to `POST /FHIR/R5/<Type>`. It reports each kind: saved, saved with details left out, not
 *   saved, and why;
 * - the glucose page (`/clients/portal/glucose`, glucose.ts): the CGM summary and AGP, and "Send to
 *   my hospital", whose launch comes back through the callback page.
 */
import FHIR from 'fhirclient';
import type Client from 'fhirclient/lib/Client';
import { PORTAL_GLUCOSE_PATH, PORTAL_PATH } from '../../shared/portal/config';
import { parseInvitationCode } from '../../shared/portal/invitation';
import { PortalError, type PortalProblem } from '../../shared/portal/messages';
import { offeredTypes, RECORD_KINDS, searchUrl, type RecordKind } from '../../shared/portal/pulls';
import { addResult, IMPORT_CHUNK, matches, nextLink, prepareForWrite, speaksR4, WRITE_CONCURRENCY, type Resource, type WriteResult } from '../../shared/portal/records';
import { IMPORT_AGAIN_NOTE, kindReport, kindSentence, reasonLines, summarySentence, totalOf, type KindReport } from '../../shared/portal/report';
import { chunksOf } from '../../shared/lists';
import { glucosePage } from './glucose';
import { launch } from './launch';
import { $, element, loadConfig, setStatus, showProblem } from './page';
import { pickHospital } from './picker';
import { ServiceApi, signInWithInvitation } from './service';
import { chosenHospital, endSession, forgetPendingSend, invitationCode, keepRun, keepServiceSession, pendingSend, rememberInvitationCode, serviceSession, unfinishedRun } from './session';

async function connect() {
  const code = new URLSearchParams(location.search).get('code');
  if (!code) throw new PortalError('no-code');
  const invitation = parseInvitationCode(code);
  if (!invitation) throw new PortalError('bad-code');
  rememberInvitationCode(code);
  // An import from here on: a send to the hospital left unfinished is not what the callback finishes.
  forgetPendingSend();
  const config = await loadConfig();
  setStatus('Checking your invitation…');
  const session = await signInWithInvitation(invitation.token);
  keepServiceSession(session);
  if (config.iss) return launch(config, { fhirBaseUrl: config.iss });
  // The picker: a directory with nothing in it means the portal is not set up yet.
  const api = new ServiceApi(session);
  if ((await api.searchBrands('', 1)).length === 0) throw new PortalError('not-configured');
  return pickHospital(api, (row) => launch(config, { name: row.brand_name, fhirBaseUrl: row.fhir_base_url }));
}

// --------------------------------------------------------------------------------- callback page

/** The hospital's answer problems: unreachable, an expired sign-in, or an error status. */
function hospitalProblem(e: unknown): PortalProblem {
  if (e instanceof TypeError) return 'hospital-unreachable';
  const status = (e as { status?: number } | undefined)?.status;
  if (status === 401) return 'hospital-session-expired';
  return 'hospital-error';
}

async function fromHospital<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    throw new PortalError(hospitalProblem(e));
  }
}

async function finishLaunch(): Promise<Client> {
  const params = new URLSearchParams(location.search);
  const error = params.get('error');
  if (error) {
    // The hospital sent the patient back without access: nothing to keep in the address bar.
    history.replaceState(null, '', location.pathname);
    throw new PortalError(error === 'access_denied' ? 'login-denied' : 'hospital-error');
  }
  try {
    // fhirclient checks `state` against the one it stored at launch, exchanges the code with the
    // PKCE verifier, and removes `code` and `state` from the address bar.
    return await FHIR.oauth2.ready();
  } catch (e) {
    if (e instanceof TypeError) throw new PortalError('hospital-unreachable');
    if (typeof (e as { status?: unknown }).status === 'number') throw new PortalError('hospital-error');
    throw new PortalError('no-session');
  }
}

function progress(label: string, value?: number, max?: number) {
  $('working').hidden = false;
  $('progress-label').textContent = label;
  const bar = $('progress') as HTMLProgressElement;
  if (value === undefined || !max) bar.removeAttribute('value');
  else {
    bar.max = max;
    bar.value = value;
  }
}

/** A search the hospital answered with an error status: refused (400, 422), not offered (404), not shared (403). */
const statusOf = (e: unknown) => (e as { status?: unknown } | undefined)?.status;
const REFUSED = new Set([400, 422]);

/** Every page of one search; `undefined` when the hospital refused it as asked (400, 403, 404, 422). */
async function readAll(client: Client, url: string, onPage: (resources: Resource[]) => void): Promise<number | undefined> {
  let next: string | undefined = url;
  while (next) {
    let page: unknown;
    try {
      page = await client.request(next);
    } catch (e) {
      const status = statusOf(e);
      if (typeof status === 'number' && (REFUSED.has(status) || status === 403 || status === 404) && next === url) return status;
      throw new PortalError(hospitalProblem(e));
    }
    onPage(matches(page));
    next = nextLink(page);
  }
  return undefined;
}

interface Pulled {
  report: KindReport;
  resources: Resource[];
}

/**
 * One kind of record, every page: the plain search, else (when refused) the first narrowed set of
 * searches the hospital answers. Records another kind already has (`seen`, by type and id) are left out.
 */
async function pullKind(client: Client, kind: RecordKind, patient: string, seen: Set<string>, onRead: (read: number) => void): Promise<Pulled> {
  const report = kindReport(kind);
  const resources: Resource[] = [];
  const keep = (page: Resource[]) => {
    for (const resource of page) {
      const key = `${resource.resourceType}/${resource.id ?? JSON.stringify(resource)}`;
      if (resource.resourceType !== kind.type || seen.has(key)) continue;
      seen.add(key);
      resources.push(resource);
    }
    report.read = resources.length;
    onRead(report.read);
  };
  let refusal = await readAll(client, searchUrl(kind, patient), keep);
  for (const searches of refusal !== undefined && REFUSED.has(refusal) ? (kind.narrowed ?? []) : []) {
    refusal = undefined;
    for (const narrowed of searches) {
      refusal = await readAll(client, searchUrl(kind, patient, narrowed), keep);
      if (refusal !== undefined) break;
    }
    if (refusal === undefined) break;
  }
  if (refusal !== undefined) report.outcome = refusal === 404 ? 'not-offered' : refusal === 403 ? 'not-shared' : 'refused';
  return { report, resources };
}

async function pull(client: Client, patient: string, offered: Set<string> | undefined): Promise<Pulled[]> {
  const seen = new Set<string>();
  const pulled: Pulled[] = [];
  let read = 0;
  for (const kind of RECORD_KINDS) {
    if (offered && !offered.has(kind.type)) {
      pulled.push({ report: kindReport(kind, 'not-offered'), resources: [] });
      continue;
    }
    const done = await pullKind(client, kind, patient, seen, (count) => progress(`Reading your records from the hospital… ${kind.label}: ${count}`));
    read += done.resources.length;
    progress(`Reading your records from the hospital… ${read} so far`);
    pulled.push(done);
  }
  return pulled;
}

/** Writes every pulled record and counts each result under its kind. */
async function write(api: ServiceApi, sourceId: number, pulled: readonly Pulled[], iss: string, r4: boolean): Promise<void> {
  const items = await Promise.all(pulled.flatMap(({ report, resources }) => resources.map(async (r) => ({ report, resource: await prepareForWrite(r, iss) }))));
  let done = 0;
  const record = (report: KindReport, result: WriteResult) => {
    addResult(report.tally, result);
    done++;
    progress(`Saving your records… ${done} of ${items.length}`, done, items.length);
  };
  progress(`Saving your records… 0 of ${items.length}`, 0, items.length);
  if (r4) {
    for (const chunk of chunksOf(items, IMPORT_CHUNK)) {
      const results = await api.importR4(
        sourceId,
        chunk.map((item) => item.resource),
      );
      results.forEach((result, i) => record(chunk[i]!.report, result));
    }
  } else {
    let next = 0;
    const worker = async () => {
      while (next < items.length) {
        const item = items[next++]!;
        record(item.report, await api.writeR5(sourceId, item.resource));
      }
    };
    await Promise.all(Array.from({ length: Math.min(WRITE_CONCURRENCY, items.length) }, worker));
  }
}

function reasonList(title: string, reasons: ReadonlyMap<string, number>, className: string): HTMLElement[] {
  if (reasons.size === 0) return [];
  const list = element('ul', undefined, className);
  list.append(...reasonLines(reasons).map((line) => element('li', line)));
  return [element('p', title, 'reasons-title'), list];
}

function showResult(reports: readonly KindReport[], hospital: string) {
  $('working').hidden = true;
  const total = totalOf(reports);
  setStatus(`Done: ${total.stored} of ${total.stored + total.failed} records saved.`);
  $('summary').textContent = summarySentence(total, hospital);
  const result = $('result');
  Object.assign(result.dataset, { stored: String(total.stored), withLoss: String(total.storedWithLoss), failed: String(total.failed) });
  $('kinds').replaceChildren(
    ...reports.map((report) => {
      const item = element('li', undefined, 'kind');
      const { stored, storedWithLoss, failed } = report.tally;
      Object.assign(item.dataset, { kind: report.kind.key, outcome: report.outcome, stored: String(stored), withLoss: String(storedWithLoss), failed: String(failed) });
      item.append(
        element('h4', report.kind.label),
        element('p', kindSentence(report)),
        ...reasonList('Why some could not be saved:', report.tally.failures, 'failure-list'),
        ...reasonList('What was left out:', report.tally.losses, 'loss-list'),
      );
      return item;
    }),
  );
  const code = invitationCode();
  const again = $('again') as HTMLAnchorElement;
  if (code) again.href = `${PORTAL_PATH}?code=${encodeURIComponent(code)}`;
  again.hidden = !code;
  $('again-note').textContent = IMPORT_AGAIN_NOTE;
  $('again-note').hidden = !code;
  $('glucose-link').hidden = !code;
  result.hidden = false;
  document.body.dataset.state = 'done';
}

async function callback() {
  // The one redirect URI registered at the hospital serves the send too: its page finishes it.
  if (pendingSend()) return location.replace(`${PORTAL_GLUCOSE_PATH}${location.search}`);
  const client = await finishLaunch();
  const session = serviceSession();
  if (!session) throw new PortalError('no-session');
  const hospitalPatient = client.getPatientId();
  if (!hospitalPatient) throw new PortalError('no-patient');
  // The server actually authorised against (as discovered at the launch), not only what was chosen.
  const iss = client.state.serverUrl;
  const hospital = chosenHospital()?.name;
  $('patient-id').textContent = hospitalPatient;
  $('hospital').textContent = hospital ?? new URL(iss).host;
  $('hospital-server').textContent = iss;
  const api = new ServiceApi(session);

  setStatus('Linking your hospital record to your study account…');
  // The Patient resource is read for its id only: the service keeps its own patient record.
  const patient = await client.request(`Patient/${encodeURIComponent(hospitalPatient)}`).catch((e: unknown) => {
    if (statusOf(e) === 403 || statusOf(e) === 404) return undefined;
    throw new PortalError(hospitalProblem(e));
  });
  const patientId = typeof (patient as { id?: unknown } | undefined)?.id === 'string' ? (patient as { id: string }).id : hospitalPatient;
  await api.storeIdentifier(iss, patientId);
  let run = unfinishedRun(session.patient, iss, hospitalPatient);
  if (!run) {
    const sourceId = await api.registerSource(await api.portalDataSource(), iss, hospital);
    run = { patient: session.patient, iss, hospitalPatient, sourceId };
    keepRun(run);
  }
  const capabilities = await fromHospital(() => client.request('metadata'));
  const fhirVersion = String((capabilities as { fhirVersion?: unknown }).fhirVersion ?? '');

  setStatus('Reading your records…');
  const readStart = performance.now();
  const pulled = await pull(client, hospitalPatient, offeredTypes(capabilities));
  const readMs = performance.now() - readStart;

  setStatus('Saving your records…');
  const writeStart = performance.now();
  await write(api, run.sourceId, pulled, iss, speaksR4(fhirVersion));
  const writeMs = performance.now() - writeStart;
  // Timings for the benchmark, never shown.
  document.body.dataset.readMs = readMs.toFixed(1);
  document.body.dataset.writeMs = writeMs.toFixed(1);
  document.body.dataset.fhirVersion = fhirVersion;
  document.body.dataset.iss = iss;
  endSession(true);
  showResult(
    pulled.map((p) => p.report),
    hospital ?? 'your hospital',
  );
}

async function main() {
  const page = document.body.dataset.page;
  try {
    if (page === 'connect') await connect();
    else if (page === 'callback') await callback();
    else if (page === 'glucose') await glucosePage();
  } catch (e) {
    if (page === 'callback') endSession(false);
    document.getElementById('working')?.setAttribute('hidden', '');
    showProblem(e instanceof PortalError ? e.problem : 'service-error', page === 'glucose' ? PORTAL_GLUCOSE_PATH : PORTAL_PATH);
  }
}

void main();
