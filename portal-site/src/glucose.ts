/**
 * The glucose page (`/clients/portal/glucose`, docs/portal.md#the-glucose-page):
 *
 * - opened from the finished import page, or with the invitation code (`?code=`), it redeems the
 *   invitation kept in this tab for a service token (held in memory only), reads the patient's
 *   `$cgm-report` for the last 14 days and shows the targets, the figures, whether the data suffice,
 *   the AGP drawn as SVG and a link to download the PDF; a patient without readings gets one sentence;
 * - "Send to my hospital" keeps the report Bundle the patient sees in this tab and starts a SMART
 *   launch with the CGM guide's write scopes at the configured hospital or the one chosen in the
 *   picker; the hospital sends the patient back to the callback page (the one redirect URI
 *   registered), which forwards here, and this page finishes the launch and sends that Bundle
 *   (send.ts), then lists each record with the hospital's answer.
 */
import FHIR from 'fhirclient';
import type Client from 'fhirclient/lib/Client';
import { BIN_MINUTES } from '../../shared/cgm/time-of-day';
import { agpChart } from '../../shared/portal/agp-chart';
import { hospitalWrites, submissionEntries, type SubmissionEntry } from '../../shared/portal/cgm-submission';
import { cgmView, loincOf, NO_READINGS, type CgmView } from '../../shared/portal/cgm-view';
import { SEND_SCOPES, type PortalConfig } from '../../shared/portal/config';
import { parseInvitationCode } from '../../shared/portal/invitation';
import { PortalError } from '../../shared/portal/messages';
import { outcomeSentence, SEND_PROBLEMS, sendSummary, sentName, sentWhat, type SendOutcome } from '../../shared/portal/send-report';
import { agpSvg } from './agp-svg';
import { launch } from './launch';
import { $, element, loadConfig, setStatus, showProblem } from './page';
import { pickHospital } from './picker';
import { atHospital, sendSubmission, Unreachable } from './send';
import { ServiceApi, signInWithInvitation } from './service';
import { endSession, invitationCode, keepPendingSend, pendingSend, rememberInvitationCode, type PendingSend } from './session';

function pdfLink(pdf: NonNullable<CgmView['pdf']>) {
  const bytes = Uint8Array.from(atob(pdf.base64), (c) => c.charCodeAt(0));
  const link = $('pdf-link') as HTMLAnchorElement;
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
  const chart = agpChart(view.agp, BIN_MINUTES);
  $('agp').replaceChildren(agpSvg(chart, 'agp-heading', 'agp-description'));
  $('agp-description').textContent = chart.description;
  if (view.pdf) pdfLink(view.pdf);
  $('report').hidden = false;
  document.body.dataset.state = 'report';
  return true;
}

/** "Send to my hospital": at the configured hospital, or the one chosen in the picker. */
function offerSend(config: PortalConfig, api: ServiceApi, report: unknown) {
  const button = $('send-button') as HTMLButtonElement;
  const start = (hospitalName: string | undefined, fhirBaseUrl: string) => {
    keepPendingSend({ hospitalName, report });
    return launch(config, hospitalName ? { name: hospitalName, fhirBaseUrl } : { fhirBaseUrl }, SEND_SCOPES);
  };
  button.addEventListener('click', () => {
    button.hidden = true;
    const started = config.iss ? start(undefined, config.iss) : pickHospital(api, (row) => start(row.brand_name, row.fhir_base_url));
    started.catch((e: unknown) => showProblem(e instanceof PortalError ? e.problem : 'service-error'));
  });
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
  const report = await api.cgmReport(api.patient);
  const view = cgmView(report);
  if (!view) throw new PortalError('service-error');
  if (!showReport(view)) return;
  const config = await loadConfig().catch(() => undefined);
  if (config) offerSend(config, api, report);
}
