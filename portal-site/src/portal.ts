/**
 * The patient portal (spec 4.8), one script for its two pages:
 * - the connect page (`/clients/portal/?code=<host>_<token>`) redeems the invitation, gets the
 *   service token, and starts the SMART standalone patient launch at the configured hospital;
 * - the callback page (`/clients/portal/callback`) finishes the launch, stores the identifier,
 *   registers a FHIR Source, reads the patient's laboratory Observations page by page and writes
 *   them: through the R4 import in Bundles of 100 when the hospital speaks R4, else one by one to
 *   `POST /FHIR/R5/Observation`. It shows what was stored, with losses, and what was not.
 */
import FHIR from 'fhirclient';
import type Client from 'fhirclient/lib/Client';
import { parsePortalConfig, PORTAL_CALLBACK_PATH, PORTAL_CONFIG_FILE, PORTAL_PATH, type PortalConfig } from '../../shared/portal/config';
import { parseInvitationCode } from '../../shared/portal/invitation';
import { NEEDS_NEW_INVITATION, PortalError, PROBLEMS, type PortalProblem } from '../../shared/portal/messages';
import {
  addResult,
  emptyTally,
  IMPORT_CHUNK,
  matches,
  nextLink,
  prepareForWrite,
  speaksR4,
  topReasons,
  WRITE_CONCURRENCY,
  type Resource,
  type Tally,
  type WriteResult,
} from '../../shared/portal/records';
import { chunksOf } from '../../shared/lists';
import { ServiceApi, signInWithInvitation } from './service';
import { endSession, invitationCode, keepRun, keepServiceSession, rememberInvitationCode, serviceSession, unfinishedRun } from './session';

const $ = (id: string) => document.getElementById(id)!;

function setStatus(text: string) {
  $('status').textContent = text;
}

function showProblem(problem: PortalProblem) {
  $('status').hidden = true;
  $('problem-text').textContent = PROBLEMS[problem];
  const code = invitationCode();
  const restart = $('restart') as HTMLAnchorElement;
  if (code && !NEEDS_NEW_INVITATION.has(problem)) {
    restart.href = `${PORTAL_PATH}?code=${encodeURIComponent(code)}`;
    restart.hidden = false;
  }
  $('problem').hidden = false;
  document.body.dataset.state = 'problem';
  document.body.dataset.problem = problem;
}

function fail(e: unknown, otherwise: PortalProblem): never {
  throw e instanceof PortalError ? e : new PortalError(otherwise);
}

async function loadConfig(): Promise<PortalConfig> {
  try {
    const res = await fetch(`/${PORTAL_CONFIG_FILE}`, { cache: 'no-store' });
    const config = res.ok ? parsePortalConfig(await res.json()) : undefined;
    if (config) return config;
  } catch {
    // below
  }
  throw new PortalError('not-configured');
}

// ---------------------------------------------------------------------------------- connect page

async function connect() {
  const code = new URLSearchParams(location.search).get('code');
  if (!code) throw new PortalError('no-code');
  const invitation = parseInvitationCode(code);
  if (!invitation) throw new PortalError('bad-code');
  rememberInvitationCode(code);
  const config = await loadConfig();
  setStatus('Checking your invitation…');
  keepServiceSession(await signInWithInvitation(invitation.token));
  setStatus('Opening the sign-in page of your hospital…');
  try {
    await FHIR.oauth2.authorize({
      iss: config.iss,
      clientId: config.clientId,
      scope: config.scope,
      redirectUri: `${location.origin}${PORTAL_CALLBACK_PATH}`,
      pkceMode: 'required',
    });
  } catch (e) {
    // Discovery failed (fhirclient reports the network error inside its own message), or the
    // server answered but offers no S256 PKCE.
    fail(e, e instanceof TypeError || /TypeError|Failed to fetch/.test(String(e)) ? 'hospital-unreachable' : 'hospital-error');
  }
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

async function pull(client: Client, hospitalPatient: string): Promise<Resource[]> {
  const resources: Resource[] = [];
  let url: string | undefined = `Observation?category=laboratory&patient=${encodeURIComponent(hospitalPatient)}`;
  let total: number | undefined;
  progress('Reading your laboratory results from the hospital…');
  while (url) {
    const page: unknown = await fromHospital(() => client.request(url!));
    resources.push(...matches(page));
    const declared = (page as { total?: unknown }).total;
    if (typeof declared === 'number') total = declared;
    progress(`Reading your laboratory results from the hospital… ${resources.length}${total ? ` of ${total}` : ''}`, resources.length, total);
    url = nextLink(page);
  }
  return resources;
}

async function write(api: ServiceApi, sourceId: number, resources: readonly Resource[], r4: boolean): Promise<Tally> {
  const tally = emptyTally();
  let done = 0;
  const record = (result: WriteResult) => {
    addResult(tally, result);
    done++;
    progress(`Saving your results… ${done} of ${resources.length}`, done, resources.length);
  };
  progress(`Saving your results… 0 of ${resources.length}`, 0, resources.length);
  if (r4) {
    for (const chunk of chunksOf(resources, IMPORT_CHUNK)) (await api.importR4(sourceId, chunk)).forEach(record);
  } else {
    let next = 0;
    const worker = async () => {
      while (next < resources.length) record(await api.writeR5(sourceId, resources[next++]!));
    };
    await Promise.all(Array.from({ length: Math.min(WRITE_CONCURRENCY, resources.length) }, worker));
  }
  return tally;
}

function listReasons(listId: string, boxId: string, reasons: Tally['failures']) {
  const list = $(listId);
  list.replaceChildren(
    ...topReasons(reasons).map(({ reason, count }) => {
      const item = document.createElement('li');
      item.textContent = `${reason} (${count} ${count === 1 ? 'record' : 'records'})`;
      return item;
    }),
  );
  $(boxId).hidden = reasons.size === 0;
}

function showResult(tally: Tally) {
  $('working').hidden = true;
  setStatus(`Done: ${tally.stored} of ${tally.stored + tally.failed} laboratory results saved.`);
  $('stored').textContent = String(tally.stored);
  $('stored-with-loss').textContent = String(tally.storedWithLoss);
  $('failed').textContent = String(tally.failed);
  listReasons('failure-list', 'failure-reasons', tally.failures);
  listReasons('loss-list', 'loss-reasons', tally.losses);
  const code = invitationCode();
  const again = $('again') as HTMLAnchorElement;
  if (code) again.href = `${PORTAL_PATH}?code=${encodeURIComponent(code)}`;
  again.hidden = !code;
  $('result').hidden = false;
  document.body.dataset.state = 'done';
}

async function callback() {
  const client = await finishLaunch();
  const session = serviceSession();
  if (!session) throw new PortalError('no-session');
  const hospitalPatient = client.getPatientId();
  if (!hospitalPatient) throw new PortalError('no-patient');
  // The server actually authorised against (the configured iss, as discovered).
  const iss = client.state.serverUrl;
  $('patient-id').textContent = hospitalPatient;
  const api = new ServiceApi(session);

  setStatus('Linking your hospital record to your study account…');
  await api.storeIdentifier(iss, hospitalPatient);
  let run = unfinishedRun(session.patient, iss, hospitalPatient);
  if (!run) {
    const sourceId = await api.registerSource(await api.portalDataSource(), iss);
    run = { patient: session.patient, iss, hospitalPatient, sourceId };
    keepRun(run);
  }
  const fhirVersion = await fromHospital(() => client.getFhirVersion());

  setStatus('Reading your laboratory results…');
  const readStart = performance.now();
  const pulled = await pull(client, hospitalPatient);
  const prepared = await Promise.all(pulled.map((r) => prepareForWrite(r, iss)));
  const readMs = performance.now() - readStart;

  setStatus('Saving your laboratory results…');
  const writeStart = performance.now();
  const tally = await write(api, run.sourceId, prepared, speaksR4(fhirVersion));
  const writeMs = performance.now() - writeStart;
  // Timings for the benchmark, never shown.
  document.body.dataset.readMs = readMs.toFixed(1);
  document.body.dataset.writeMs = writeMs.toFixed(1);
  document.body.dataset.fhirVersion = fhirVersion;
  endSession(true);
  showResult(tally);
}

async function main() {
  const page = document.body.dataset.page;
  try {
    if (page === 'connect') await connect();
    else if (page === 'callback') await callback();
  } catch (e) {
    if (page === 'callback') endSession(false);
    document.getElementById('working')?.setAttribute('hidden', '');
    showProblem(e instanceof PortalError ? e.problem : 'service-error');
  }
}

void main();
