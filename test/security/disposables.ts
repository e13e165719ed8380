/**
 * Disposable copies of what a destructive row aims at. A caller allowed to delete or remove
 * something does it to one of these, so the world every other row probes stays whole; each returns
 * the world with that one piece swapped for a fresh one of the same kind (and owner).
 */
import { postAuxiliary, condition } from '../support/auxiliary';
import { makeDataSource, makeFhirSource, makePatient, makePractitioner, makeStudy, type WithToken } from '../support/directory';
import { invite } from '../support/oauth';
import { labObservation } from '../support/observations';
import { send } from '../support/api';
import type { Patient } from '../../shared/directory/model';
import { finishedExport, HEART_RATE, type PatientSide, type World } from './world';

const withA = (w: World, patch: Partial<PatientSide>): World => ({ ...w, A: { ...w.A, ...patch } });

async function createdId(res: Promise<{ status: number; text: string; json: { id: string | number } }>): Promise<string> {
  const answer = await res;
  if (answer.status >= 300) throw new Error(`disposable not created: ${answer.status} ${answer.text}`);
  return String(answer.json.id);
}

export const freshCondition = async (w: World) =>
  withA(w, { conditionId: await createdId(postAuxiliary('Condition', condition(), w.A.patient.token, w.A.source.id)) });

export const freshLabObservation = async (w: World) =>
  withA(w, { labObservationId: await createdId(postAuxiliary('Observation', labObservation(w.A), w.A.patient.token, w.A.source.id)) });

/** Another patient of A's organization (erasing one is for good). */
export const freshPatient = async (w: World) =>
  withA(w, { patient: (await makePatient({ organizations: [w.o1], login: true })) as Patient & WithToken });

/** Another study of A's organization with A enrolled and consenting, as A's own. */
export const freshStudy = async (w: World) =>
  withA(w, { study: await makeStudy({ organization: w.o1, codes: [HEART_RATE], patients: [w.A.patient], consent: true, dataSources: [w.A.device] }) });

export const freshDevice = async (w: World) => withA(w, { device: await makeDataSource({ codes: [HEART_RATE] }) });

export const freshSource = async (w: World) => withA(w, { source: await makeFhirSource({ patient: w.A.patient, dataSource: w.A.device }) });

export const freshInvitation = async (w: World) => withA(w, { invitationId: (await invite(w.inOrg.token, w.A.patient.id, w.portalClient)).id });

/** Another API key of `inOrg` (deleting the world's own would refuse the `apiKey` caller's token). */
export const freshApiKey = async (w: World) => ({
  ...w,
  apiKey: { ...w.apiKey, id: Number(await createdId(send('POST', '/api/v1/practitioner_clients', w.inOrg.token, { name: 'disposable' }))) },
});

/** Another practitioner of O1, in `inOrg`'s place as the one removed or deleted. */
export const freshColleague = async (w: World) => ({ ...w, inOrg: await makePractitioner({ organizations: [w.o1] }) });

/** Another practitioner of O2, in `outOrg`'s place as the one let into O1. */
export const freshOutsider = async (w: World) => ({ ...w, outOrg: await makePractitioner({ organizations: [w.o2] }) });

/** Another finished export of A's own data (cancelling one is for good). */
export const freshExport = async (w: World) => withA(w, { exportJob: await finishedExport(w.A.patient.token) });
