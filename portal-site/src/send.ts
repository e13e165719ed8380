/**
 * "Send to my hospital", the writes (docs/portal.md#sending-to-the-hospital): the CGM guide's data
 * submission POSTed to the hospital's FHIR server with the token of the send's launch, the way its
 * CapabilityStatement says it takes it (shared/portal/cgm-submission.ts), and the hospital's answer
 * for each resource. A transaction is all or nothing; a batch or single POSTs go in waves, an entry
 * held back when what it refers to was not saved. An unreachable server leaves what was not yet sent
 * "not sent".
 */
import {
  entryNeeds, submissionBundle, submissionWaves, withSavedReferences, type HospitalWrites, type SubmissionEntry,
} from '../../shared/portal/cgm-submission';
import { bundleOutcomes, notSentBecause, sentName, UNREACHABLE, writeOutcome, type SendOutcome } from '../../shared/portal/send-report';

const FHIR_JSON = 'application/fhir+json';

/** The hospital could not be reached. */
export class Unreachable extends Error {}

interface Answer {
  status: number;
  body: unknown;
  location: string | null;
}

/** A GET or POST at the hospital with the launch's token; a network failure is `Unreachable`. */
export async function atHospital(url: string, authorization: string | null, body?: unknown): Promise<Answer> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: body === undefined ? 'GET' : 'POST',
      cache: 'no-store',
      credentials: 'omit',
      headers: { accept: FHIR_JSON, ...(authorization ? { authorization } : {}), ...(body === undefined ? {} : { 'content-type': FHIR_JSON }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new Unreachable();
  }
  return { status: res.status, body: await res.json().catch(() => undefined), location: res.headers.get('location') };
}

/** The hospital's answer for each entry, in order. */
export async function sendSubmission(base: string, authorization: string | null, entries: readonly SubmissionEntry[], writes: HospitalWrites): Promise<SendOutcome[]> {
  const outcomes = new Map<string, SendOutcome>();
  const timestamp = new Date().toISOString();
  try {
    if (writes.route === 'submit-cgm-bundle' || writes.route === 'transaction') {
      const url = writes.route === 'transaction' ? base : `${base}/$submit-cgm-bundle`;
      const answer = await atHospital(url, authorization, submissionBundle(entries, 'transaction', writes.r4, timestamp));
      return bundleOutcomes(answer.status, answer.body, entries.length, base);
    }
    const saved = new Map<string, string>();
    for (const wave of submissionWaves(entries)) {
      const ready: SubmissionEntry[] = [];
      for (const entry of wave) {
        const missing = entryNeeds(entry, entries).filter((e) => !saved.has(e.fullUrl));
        if (missing.length > 0) outcomes.set(entry.fullUrl, { state: 'not-sent', reason: notSentBecause([...new Set(missing.map((e) => sentName(e.resource)))]) });
        else ready.push({ fullUrl: entry.fullUrl, resource: withSavedReferences(entry.resource, saved) });
      }
      if (writes.route === 'batch' && ready.length > 0) {
        const answer = await atHospital(base, authorization, submissionBundle(ready, 'batch', writes.r4, timestamp));
        const answers = bundleOutcomes(answer.status, answer.body, ready.length, base);
        ready.forEach((e, i) => outcomes.set(e.fullUrl, answers[i]!));
      } else {
        for (const e of ready) {
          const answer = await atHospital(`${base}/${e.resource.resourceType}`, authorization, e.resource);
          outcomes.set(e.fullUrl, writeOutcome(answer.status, answer.body, answer.location, base));
        }
      }
      for (const e of ready) {
        const outcome = outcomes.get(e.fullUrl)!;
        if (outcome.state === 'saved' && outcome.reference) saved.set(e.fullUrl, outcome.reference);
      }
    }
  } catch (e) {
    if (!(e instanceof Unreachable)) throw e;
  }
  // What an unreachable server left unanswered was not sent.
  return entries.map((e) => outcomes.get(e.fullUrl) ?? { state: 'not-sent', reason: UNREACHABLE });
}
