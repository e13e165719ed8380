/**
 * What the glucose page says about a send to the hospital (docs/portal.md#sending-to-the-hospital):
 * each resource by a name a patient knows and what it holds, the hospital's answer for it in plain
 * words (saved, refused and why, not sent and why), and one line for the whole send. Pure functions,
 * shared by the page and the unit tests; the hospital's own diagnostics are shown shortened, as text.
 */
import { COEFFICIENT_OF_VARIATION, DAYS_OF_WEAR, GMI, IG_UNITS, MEAN_GLUCOSE, SENSOR_ACTIVE, SUMMARY_PANEL, TIME_IN_BAND, TIMES_IN_RANGES } from '../cgm/codes';
import { BANDS } from '../cgm/thresholds';
import { isObject } from '../json';
import { loincOf, periodWords } from './cgm-view';
import { entryStatus, type Resource } from './records';
import { savedReference } from './cgm-submission';

/** The hospital's answer for one resource. */
export type SendOutcome =
  | { state: 'saved'; reference: string | undefined }
  | { state: 'refused'; status: number; reason: string }
  | { state: 'not-sent'; reason: string };

const NAMES: ReadonlyMap<string, string> = new Map([
  [`Observation|${SUMMARY_PANEL.code}`, 'Glucose summary'],
  [`Observation|${MEAN_GLUCOSE['mg/dL'].code}`, 'Average glucose'],
  [`Observation|${MEAN_GLUCOSE['mmol/L'].code}`, 'Average glucose'],
  [`Observation|${TIMES_IN_RANGES.code}`, 'Time in ranges'],
  [`Observation|${GMI.code}`, 'Glucose management indicator (GMI)'],
  [`Observation|${COEFFICIENT_OF_VARIATION.code}`, 'Glucose variability (CV)'],
  [`Observation|${DAYS_OF_WEAR.code}`, 'Days with sensor readings'],
  [`Observation|${SENSOR_ACTIVE.code}`, 'Time the sensor was active'],
  [`DiagnosticReport|${SUMMARY_PANEL.code}`, 'AGP report (PDF)'],
]);

/** A name a patient knows for a resource of the submission. */
export const sentName = (resource: Resource): string => NAMES.get(`${resource.resourceType}|${loincOf(resource) ?? ''}`) ?? resource.resourceType;

const BAND_WORDS: Readonly<Record<(typeof BANDS)[number], string>> = { veryLow: 'very low', low: 'low', target: 'in range', high: 'high', veryHigh: 'very high' };

/** A quantity as a patient reads it: `47.58%`, `150.4 mg/dL`, `14 days`. */
const quantityText = (holder: unknown): string | undefined => {
  const q = isObject(holder) ? holder.valueQuantity : undefined;
  if (!isObject(q) || typeof q.value !== 'number') return undefined;
  if (q.code === IG_UNITS.percent.code) return `${q.value}%`;
  return `${q.value} ${q.code === IG_UNITS.days.code ? IG_UNITS.days.text : String(q.code ?? '')}`.trimEnd();
};

/** What a sent resource holds, in a few words: its figure, the bands' shares, the period, or the PDF's size. */
export function sentWhat(resource: Resource): string {
  if (resource.resourceType === 'DiagnosticReport') {
    const form = Array.isArray(resource.presentedForm) ? resource.presentedForm.find(isObject) : undefined;
    const data = isObject(form) && typeof form.data === 'string' ? form.data : '';
    return `A PDF of one page, ${Math.max(1, Math.round((data.length * 3) / 4 / 1024))} KB`;
  }
  const code = loincOf(resource);
  if (code === SUMMARY_PANEL.code) {
    const period = resource.effectivePeriod;
    return isObject(period) && typeof period.start === 'string' && typeof period.end === 'string' ? `The period ${periodWords({ start: period.start, end: period.end })}` : 'The period';
  }
  if (code === TIMES_IN_RANGES.code) {
    const components = Array.isArray(resource.component) ? resource.component.filter(isObject) : [];
    return BANDS.flatMap((band) => {
      const text = quantityText(components.find((c) => loincOf(c) === TIME_IN_BAND[band].code));
      return text ? [`${BAND_WORDS[band]} ${text}`] : [];
    }).join(', ');
  }
  return quantityText(resource) ?? 'No figure (no readings)';
}

const MAX_DIAGNOSTICS = 200;

/** The hospital's reasons from its OperationOutcome, shortened: its issues' diagnostics (or details' text), one after the other. */
export function hospitalDiagnostics(outcome: unknown): string | undefined {
  const issues = isObject(outcome) && Array.isArray(outcome.issue) ? outcome.issue.filter(isObject) : [];
  const texts = issues
    .filter((i) => i.severity !== 'information' && i.severity !== 'warning')
    .map((i) => (typeof i.diagnostics === 'string' ? i.diagnostics : isObject(i.details) && typeof i.details.text === 'string' ? i.details.text : ''))
    .map((t) => t.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
  if (texts.length === 0) return undefined;
  const text = [...new Set(texts)].join(' ');
  return text.length > MAX_DIAGNOSTICS ? `${text.slice(0, MAX_DIAGNOSTICS - 1).trimEnd()}…` : text;
}

/** Why the hospital refused a write, in plain words. */
export function refusalReason(status: number, outcome: unknown): string {
  if (status === 401) return 'Your sign-in at the hospital expired before it was saved. Send again to finish.';
  if (status === 403) return 'Your hospital did not let the portal add it: the permission to add these records was not given.';
  if (status === 404 || status === 405) return 'Your hospital does not accept these records from apps.';
  const said = hospitalDiagnostics(outcome);
  if (status >= 500) return `Your hospital’s server answered with an error (error ${status}). Please try again later.`;
  return said ? `Your hospital refused it: ${said}` : `Your hospital refused it (error ${status}).`;
}

/**
 * The outcome of one write from its status, its body (an OperationOutcome, or the saved record) and
 * its location. Where the record was saved comes from the location, else from the record returned
 * (a browser reads a cross-origin `Location` only when the hospital exposes it).
 */
export function writeOutcome(status: number, body: unknown, location: unknown, base: string): SendOutcome {
  if (status >= 200 && status < 300) {
    const returned = isObject(body) && typeof body.resourceType === 'string' && typeof body.id === 'string' ? `${body.resourceType}/${body.id}` : undefined;
    return { state: 'saved', reference: savedReference(location, base) ?? savedReference(returned, base) };
  }
  return { state: 'refused', status, reason: refusalReason(status, body) };
}

/** The outcome of one entry of a batch- or transaction-response. */
export function entryOutcome(entry: unknown, base: string): SendOutcome {
  const response = isObject(entry) && isObject(entry.response) ? entry.response : undefined;
  if (!response) return { state: 'not-sent', reason: 'Your hospital gave no answer for it, so it may not have been saved.' };
  return writeOutcome(entryStatus(response.status), response.outcome, response.location, base);
}

/**
 * The outcomes of `count` entries sent in one Bundle: each entry's answer when the Bundle was taken
 * (2xx), else the refusal of the whole for each (a transaction is all or nothing).
 */
export function bundleOutcomes(status: number, body: unknown, count: number, base: string): SendOutcome[] {
  if (status < 200 || status >= 300) return Array.from({ length: count }, () => ({ state: 'refused', status, reason: refusalReason(status, body) }));
  const entries = isObject(body) && Array.isArray(body.entry) ? body.entry : [];
  return Array.from({ length: count }, (_, i) => entryOutcome(entries[i], base));
}

export const UNREACHABLE = 'We could not reach your hospital’s server, so it was not sent. Check your internet connection and send again.';

/** An entry held back because what it refers to was not saved. */
export const notSentBecause = (names: readonly string[]): string => `Not sent, because what it refers to was not saved: ${names.join(', ')}.`;

/** The line under a sent resource. */
export function outcomeSentence(outcome: SendOutcome): string {
  switch (outcome.state) {
    case 'saved':
      return outcome.reference ? `Saved at your hospital (${outcome.reference}).` : 'Saved at your hospital.';
    case 'refused':
      return `Not saved. ${outcome.reason}`;
    case 'not-sent':
      return outcome.reason;
  }
}

const records = (n: number) => `${n} ${n === 1 ? 'record' : 'records'}`;

/** The line above the list: how many of the records the hospital saved. */
export function sendSummary(outcomes: readonly SendOutcome[], hospital: string): string {
  const saved = outcomes.filter((o) => o.state === 'saved').length;
  if (saved === outcomes.length) return `Sent to ${hospital}: all ${records(saved)} were saved.`;
  if (saved === 0) return `Nothing was saved at ${hospital}. The list below says why.`;
  return `Sent to ${hospital}: ${saved} of ${records(outcomes.length)} were saved; the list below says why the others were not.`;
}

/** Problems of the send as a whole, before anything is sent. */
export const SEND_PROBLEMS = {
  denied: 'You did not allow the portal to send to your hospital, so nothing was sent.',
  noPatient: 'Your hospital did not share which patient record to use (the "launch/patient" permission was not given), so nothing was sent. Send again and allow access to your patient record.',
  signIn: 'The sign-in at your hospital could not be finished, so nothing was sent. Please send again.',
  unreachable: 'We could not reach your hospital’s server, so nothing was sent. Check your internet connection and send again.',
  hospitalError: 'Your hospital’s server answered with an error, so nothing was sent. Please try again later.',
  lost: 'The summary to send was not found in this browser tab, so nothing was sent. Open this page again and send from there.',
} as const;
