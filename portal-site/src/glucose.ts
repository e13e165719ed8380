/**
 * The glucose page (`/clients/portal/glucose`, docs/portal.md#the-glucose-page):
 *
 * - opened from the finished import page, or with the invitation code (`?code=`), it redeems the
 *   invitation kept in this tab for a service token (held in memory only), reads the patient's
 *   `$cgm-report` for the last 14 days and shows the targets, the figures, whether the data suffice,
 *   the AGP drawn as SVG and a link to download the PDF; a patient without readings gets one sentence;
 * - a unit switch reads the report again in mmol/L or mg/dL (figures, AGP and PDF), the choice
 *   remembered in this tab;
 * - "Send to my hospital" keeps the report Bundle the patient sees in this tab and starts a SMART
 *   launch with the CGM guide's write scopes (their SMART v1 equivalents where the hospital declares
 *   only v1) at the configured hospital, at a hospital the patient has connected (their FHIR
 *   Sources), or at the one chosen in the picker; the hospital sends the
 *   patient back to the callback page (the one redirect URI registered), which forwards here, and
 *   this page finishes the launch and sends that Bundle (send.ts), then lists each record with the
 *   hospital's answer.
 */
import FHIR from 'fhirclient';
import type Client from 'fhirclient/lib/Client';
import { BIN_MINUTES } from '../../shared/cgm/time-of-day';
import { GLUCOSE_UNITS, type GlucoseUnit } from '../../shared/cgm/units';
import { agpChart, targetRangeWords } from '../../shared/portal/agp-chart';
import { hospitalWrites, submissionEntries, type SubmissionEntry } from '../../shared/portal/cgm-submission';
import { cgmView, DEFAULT_UNIT, loincOf, NO_READINGS, type CgmView } from '../../shared/portal/cgm-view';
import { PORTAL_GLUCOSE_PATH, type PortalConfig } from '../../shared/portal/config';
import { sameServer, type ConnectedHospital } from '../../shared/portal/connected-hospitals';
import { parseInvitationCode } from '../../shared/portal/invitation';
import { PortalError } from '../../shared/portal/messages';
import { outcomeSentence, SEND_PROBLEMS, sendSummary, sentName, sentWhat, type SendOutcome } from '../../shared/portal/send-report';
import { sendScopes } from '../../shared/portal/send-scopes';
import { agpSvg } from './agp-svg';
import { launch } from './launch';
import { $, element, loadConfig, setStatus, showProblem } from './page';
import { pickHospital } from './picker';
import { atHospital, sendSubmission, Unreachable } from './send';
import { ServiceApi, signInWithInvitation } from './service';
import { chosenUnit, endSession, invitationCode, keepPendingSend, pendingSend, rememberInvitationCode, rememberUnit, type PendingSend } from './session';

/** The report the page shows: the Bundle ("Send to my hospital" sends it) and its unit. */
interface Shown {
  report: unknown;
  unit: GlucoseUnit;
}

/** A problem of this page; "Start again" comes back here. */
const glucoseProblem = (e: unknown) => showProblem(e instanceof PortalError ? e.problem : 'service-error', PORTAL_GLUCOSE_PATH);

function pdfLink(pdf: NonNullable<CgmView['pdf']>) {
  const bytes = Uint8Array.from(atob(pdf.base64), (c) => c.charCodeAt(0));
  const link = $('pdf-link') as HTMLAnchorElement;
  // The PDF of the unit shown before goes.
  if (link.href.startsWith('blob:')) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([bytes], { type: 'application/pdf' }));
  link.download = 'agp-report.pdf';
  link.title = pdf.title;
  $('pdf').hidden = false;
}

/** The summary as the page shows it; false when there are no readings to show. */
function showReport(view: CgmView): boolean {
  $('status').hidden = true;
  if (!view.hasReadings) {
    $('no-readings').textContent = NO_READINGS;
    $('no-readings').hidden = false;
    document.body.dataset.state = 'no-readings';
    return false;
  }
  $('period').textContent = `From ${view.period}.`;
  const sufficiency = $('sufficiency');
  sufficiency.replaceChildren(...view.sufficiency.map((sentence) => element('p', sentence)));
  sufficiency.className = view.sufficient ? 'sufficiency' : 'sufficiency notice';
  $('targets').replaceChildren(
    ...view.targets.map((line) => {
      const item = element('li', undefined, 'target');
      Object.assign(item.dataset, { metric: line.metric, met: String(line.met) });
      item.append(element('span', line.label, 'label'), element('span', `${line.percent.toFixed(1)}%`, 'figure'), element('span', `Target: ${line.target}`, 'goal'), element('strong', line.met ? 'Met' : 'Not met', line.met ? 'met' : 'not-met'));
      return item;
    }),
  );
  $('figures').replaceChildren(
    ...view.figures.map((figure) => {
      const row = element('div');
      row.dataset.figure = figure.key;
      row.append(element('dt', figure.label), element('dd', figure.text));
      return row;
    }),
  );
  const chart = agpChart(view.agp, BIN_MINUTES, view.unit);
  $('agp').replaceChildren(agpSvg(chart, 'agp-heading', 'agp-description'));
  $('agp-description').textContent = chart.description;
  $('agp-target-range').textContent = targetRangeWords(view.unit);
  if (view.pdf) pdfLink(view.pdf);
  $('report').hidden = false;
  Object.assign(document.body.dataset, { state: 'report', unit: view.unit });
  return true;
}

/**
 * The unit switch: the report read again in the unit chosen (figures, AGP, PDF, and what a send
 * sends), the choice remembered in this tab; a report read once is kept. The last choice wins
 * when the patient switches again before an answer comes.
 */
function offerUnits(api: ServiceApi, shown: Shown) {
  const reports = new Map<GlucoseUnit, unknown>([[shown.unit, shown.report]]);
  const choices = Array.from(document.querySelectorAll<HTMLInputElement>('#units input[name=unit]'));
  let asked: GlucoseUnit = shown.unit;
  const show = async (unit: GlucoseUnit) => {
    const report = reports.get(unit) ?? (await api.cgmReport(api.patient, unit));
    if (unit !== asked) return;
    const view = cgmView(report);
    if (!view) throw new PortalError('service-error');
    reports.set(unit, report);
    Object.assign(shown, { report, unit: view.unit });
    showReport(view);
  };
  for (const choice of choices) {
    choice.checked = choice.value === shown.unit;
    choice.addEventListener('change', () => {
      const unit = GLUCOSE_UNITS.find((u) => u === choice.value);
      if (!choice.checked || !unit) return;
      asked = unit;
      rememberUnit(unit);
      setStatus(`Reading your summary in ${unit}…`);
      show(unit).catch(glucoseProblem);
    });
  }
  $('units').hidden = false;
}

/** The hospitals the patient connected, each a button that sends there. */
function showConnected(hospitals: readonly ConnectedHospital[], choose: (hospital: ConnectedHospital) => void) {
  $('connected-help').textContent = hospitals.length === 1 ? 'Your study account is connected to this hospital:' : 'Your study account is connected to these hospitals:';
  $('connected-list').replaceChildren(
    ...hospitals.map((hospital) => {
      const button = element('button', undefined, 'choice');
      button.type = 'button';
      button.dataset.fhirBaseUrl = hospital.fhirBaseUrl;
      button.append(element('span', `Send to ${hospital.name ?? 'your hospital'}`, 'facility'), element('span', hospital.fhirBaseUrl, 'server'));
      button.addEventListener('click', () => choose(hospital));
      const item = element('li');
      item.append(button);
      return item;
    }),
  );
  $('connected').hidden = false;
}

/**
 * "Send to my hospital": at the configured hospital (named as the patient's source there names
 * it); else at a hospital the patient connected, or another one chosen in the picker.
 */
async function offerSend(config: PortalConfig, api: ServiceApi, shown: Shown) {
  const button = $('send-button') as HTMLButtonElement;
  const start = (hospitalName: string | undefined, fhirBaseUrl: string) => {
    button.hidden = true;
    $('connected').hidden = true;
    keepPendingSend({ hospitalName, report: shown.report });
    return launch(config, hospitalName ? { name: hospitalName, fhirBaseUrl } : { fhirBaseUrl }, sendScopes).catch(glucoseProblem);
  };
  const connected = await api.connectedHospitals().catch((): ConnectedHospital[] => []);
  if (config.iss) {
    const name = connected.find((h) => sameServer(h.fhirBaseUrl, config.iss))?.name;
    button.addEventListener('click', () => void start(name, config.iss));
  } else {
    if (connected.length > 0) {
      showConnected(connected, (hospital) => void start(hospital.name, hospital.fhirBaseUrl));
      button.textContent = 'Send to another hospital';
    }
    button.addEventListener('click', () => {
      button.hidden = true;
      $('connected').hidden = true;
      pickHospital(api, (row) => start(row.brand_name, row.fhir_base_url)).catch(glucoseProblem);
    });
  }
  $('send').hidden = false;
}

function sendProblem(text: string) {
  $('status').hidden = true;
  $('send-problem').textContent = text;
  $('send-problem').hidden = false;
  $('sent').hidden = false;
  document.body.dataset.state = 'send-problem';
}

function showSent(entries: readonly SubmissionEntry[], outcomes: readonly SendOutcome[], hospital: string, base: string, patient: string) {
  $('status').hidden = true;
  $('sent-summary').textContent = sendSummary(outcomes, hospital);
  $('sent-hospital').textContent = hospital;
  $('sent-server').textContent = base;
  $('sent-patient').textContent = patient;
  $('sent-ids').hidden = false;
  $('sent-list').replaceChildren(
    ...entries.map((entry, i) => {
      const outcome = outcomes[i]!;
      const item = element('li', undefined, 'kind sent-item');
      Object.assign(item.dataset, { type: entry.resource.resourceType, code: loincOf(entry.resource) ?? '', state: outcome.state, reference: outcome.state === 'saved' ? (outcome.reference ?? '') : '' });
      item.append(element('h3', sentName(entry.resource)), element('p', sentWhat(entry.resource)), element('p', outcomeSentence(outcome), `outcome ${outcome.state}`));
      return item;
    }),
  );
  $('sent').hidden = false;
  document.body.dataset.state = 'sent';
}

/** Back from the hospital's sign-in: finish the launch, learn how it takes writes, send the kept report, say what happened. */
async function finishSend(send: PendingSend, hospital: string): Promise<void> {
  const error = new URLSearchParams(location.search).get('error');
  if (error) {
    history.replaceState(null, '', location.pathname);
    return sendProblem(error === 'access_denied' ? SEND_PROBLEMS.denied : SEND_PROBLEMS.signIn);
  }
  let client: Client;
  try {
    // fhirclient checks `state`, exchanges the code with the PKCE verifier, and cleans the address bar.
    client = await FHIR.oauth2.ready();
  } catch (e) {
    return sendProblem(e instanceof TypeError ? SEND_PROBLEMS.unreachable : SEND_PROBLEMS.signIn);
  }
  const patient = client.getPatientId();
  if (!patient) return sendProblem(SEND_PROBLEMS.noPatient);
  const base = client.state.serverUrl.replace(/\/+$/, '');
  const authorization = client.getAuthorizationHeader();
  setStatus(`Sending your summary to ${hospital}…`);
  let capabilities: unknown;
  try {
    const answer = await atHospital(`${base}/metadata`, authorization);
    if (answer.status >= 300) return sendProblem(SEND_PROBLEMS.hospitalError);
    capabilities = answer.body;
  } catch (e) {
    if (e instanceof Unreachable) return sendProblem(SEND_PROBLEMS.unreachable);
    throw e;
  }
  const writes = hospitalWrites(capabilities);
  const entries = submissionEntries(send.report, patient, writes.r4);
  if (entries.length === 0) return sendProblem(SEND_PROBLEMS.lost);
  const outcomes = await sendSubmission(base, authorization, entries, writes);
  Object.assign(document.body.dataset, { fhirVersion: writes.fhirVersion, route: writes.route });
  showSent(entries, outcomes, hospital, base, patient);
}

export async function glucosePage(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const send = pendingSend();
  if (send && (params.has('state') || params.has('error'))) {
    const view = cgmView(send.report);
    if (view) showReport(view);
    try {
      await finishSend(send, send.hospitalName ?? 'your hospital');
    } finally {
      // The hospital's token and the kept report go; the invitation stays for this page's next visit.
      endSession(true);
    }
    return;
  }
  const code = params.get('code') ?? invitationCode();
  if (!code) throw new PortalError('no-session');
  const invitation = parseInvitationCode(code);
  if (!invitation) throw new PortalError('bad-code');
  if (params.has('code')) {
    rememberInvitationCode(code);
    history.replaceState(null, '', location.pathname);
  }
  setStatus('Checking your invitation…');
  const api = new ServiceApi(await signInWithInvitation(invitation.token));
  setStatus('Reading your glucose sensor summary…');
  const report = await api.cgmReport(api.patient, chosenUnit() ?? DEFAULT_UNIT);
  const view = cgmView(report);
  if (!view) throw new PortalError('service-error');
  if (!showReport(view)) return;
  const shown: Shown = { report, unit: view.unit };
  offerUnits(api, shown);
  const config = await loadConfig().catch(() => undefined);
  if (config) await offerSend(config, api, shown);
}
