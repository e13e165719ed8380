/**
 * The world the isolation matrix probes, built through the fixtures and the real endpoints:
 *
 * - organization O1 with patients A and B (logins, one study and one device each, consent, a FHIR
 *   Source, two stored mobile-health readings, an auxiliary Condition and lab Observation, an
 *   identifier, an invitation), a practitioner (member), an admin (manager and superuser), and a
 *   practitioner and a patient deactivated after their tokens were issued;
 * - organization O2 with its own practitioner, who sees nothing of O1.
 *
 * A and B share an organization so that every patient-level check is tested where an
 * organization-level check would still let the data through; O2 tests the organization boundary.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { updateUser } from '../../shared/directory/users';
import type { Code, DataSource, FhirSource, Identifier, Organization, Patient, Practitioner, Study } from '../../shared/directory/model';
import { send } from '../support/api';
import { condition, postAuxiliary } from '../support/auxiliary';
import { code, makeDataSource, makeFhirSource, makeOrganization, makePatient, makePractitioner, makeStudy, type WithToken } from '../support/directory';
import { call } from '../support/invoke';
import { finished, kickOff, pathOf, runExportWork } from '../support/export';
import { invite, postForm, serviceClients } from '../support/oauth';
import { idsOf, labObservation, observation, upload } from '../support/observations';

export const HEART_RATE = 'omh:heart-rate:2.0';

/** Everything of one patient that another caller could try to reach. */
export interface PatientSide {
  patient: Patient & WithToken;
  study: Study;
  device: DataSource;
  source: FhirSource;
  /** Ids of stored mobile-health readings (native store). */
  observationIds: string[];
  /** Their Base64 payloads, unique to each reading. */
  payloads: string[];
  /** The identifier of the first reading (identifiers are unique across the store). */
  readingIdentifier: { system: string; value: string };
  /** UUIDs of auxiliary rows: a Condition and a lab Observation. */
  conditionId: string;
  labObservationId: string;
  identifier: Identifier;
  invitationId: number;
  /** The `next` links of the patient's own one-per-page searches: of readings, of Conditions. */
  nextPages: { readings: string; conditions: string };
  /** A finished export of the patient's own data: its status URL's path and its first file's. */
  exportJob: { status: string; file: string };
}

export interface World {
  o1: Organization;
  o2: Organization;
  A: PatientSide;
  B: PatientSide;
  /** Member of O1. */
  inOrg: Practitioner & WithToken;
  /** Member of O2 only. */
  outOrg: Practitioner & WithToken;
  /** Manager of O1 and superuser. */
  admin: Practitioner & WithToken;
  /** Member of O1, deactivated after `token` was issued. */
  deactivatedPractitioner: Practitioner & WithToken;
  /** Patient of O1, deactivated after `token` was issued. */
  deactivatedPatient: Patient & WithToken;
  /** An API key of `inOrg` and the token it was exchanged for. */
  apiKey: { id: number; clientId: string; token: string };
  /** The portal client's number, for invitations. */
  portalClient: number;
  /** The code every study requests and every device supports. */
  heartRate: Code;
}

const unique = () => randomBytes(4).toString('hex');

/** A 2xx answer's JSON, or the test stops with the answer in the message. */
/** The path and query of a search's `next` link. */
async function nextPage(token: string, path: string): Promise<string> {
  const res = await call('GET', path, { token });
  const next = (res.json?.link as Array<{ relation: string; url: string }> | undefined)?.find((l) => l.relation === 'next');
  expect(next, `${path} has a next page: ${res.text}`).toBeDefined();
  const url = new URL(next!.url);
  return `${url.pathname}${url.search}`;
}

function created<T>(res: { status: number; text: string; json: T }, what: string): T {
  expect(res.status, `${what}: ${res.text}`).toBeLessThan(300);
  return res.json;
}

async function patientSide(o1: Organization, inOrg: Practitioner & WithToken, portalClient: number): Promise<PatientSide> {
  const patient = (await makePatient({ organizations: [o1], login: true })) as Patient & WithToken;
  const device = await makeDataSource({ codes: [HEART_RATE] });
  const study = await makeStudy({ organization: o1, codes: [HEART_RATE], patients: [patient], consent: true, dataSources: [device] });
  const source = await makeFhirSource({ patient, dataSource: device });
  const readingIdentifier = { system: 'https://device.example.test/readings', value: `reading-${unique()}` };
  const readings = [observation({ patient, device }, { identifiers: [readingIdentifier] }), observation({ patient, device })];
  const observationIds = idsOf(await upload(patient.token, readings));
  const payloads = readings.map((r) => (r.valueAttachment as { data: string }).data);
  const conditionId = created(await postAuxiliary('Condition', condition(), patient.token, source.id), 'Condition').id as string;
  created(await postAuxiliary('Condition', condition(), patient.token, source.id), 'second Condition');
  const labObservationId = created(await postAuxiliary('Observation', labObservation({ patient, device }), patient.token, source.id), 'lab Observation').id as string;
  const identifier = { system: 'https://ehr.example.test/fhir', value: `ehr-${unique()}` };
  created(await send('POST', '/api/v1/portal/identifier', patient.token, identifier), 'identifier');
  const invitationId = (await invite(inOrg.token, patient.id, portalClient)).id;
  const nextPages = {
    readings: await nextPage(patient.token, '/FHIR/R5/Observation?_count=1'),
    conditions: await nextPage(patient.token, '/FHIR/R5/Condition?_count=1'),
  };
  return { patient, study, device, source, observationIds, payloads, readingIdentifier, conditionId, labObservationId, identifier, invitationId, nextPages, exportJob: { status: '', file: '' } };
}

/** An export of the caller's own data, run to its end: the paths of its status URL and of its first file. */
export async function finishedExport(token: string): Promise<{ status: string; file: string }> {
  const kicked = await kickOff(token, '/FHIR/R5/$export?_type=Patient,Observation');
  expect(kicked.status, kicked.text).toBe(202);
  await runExportWork();
  const manifest = await finished(token, kicked);
  return { status: pathOf(kicked.headers['content-location']!), file: pathOf(manifest.output[0]!.url) };
}

export async function buildWorld(): Promise<World> {
  const o1 = await makeOrganization();
  const o2 = await makeOrganization();
  const inOrg = await makePractitioner({ organizations: [o1] });
  const outOrg = await makePractitioner({ organizations: [o2] });
  const admin = await makePractitioner({ roles: [[o1, 'manager']], superuser: true });
  const deactivatedPractitioner = await makePractitioner({ organizations: [o1] });
  const deactivatedPatient = (await makePatient({ organizations: [o1], login: true })) as Patient & WithToken;
  const portalClient = (await serviceClients()).portal.id;
  const [A, B] = await Promise.all([patientSide(o1, inOrg, portalClient), patientSide(o1, inOrg, portalClient)]);
  // One after the other: each runs the queue's work to its end.
  A.exportJob = await finishedExport(A.patient.token);
  B.exportJob = await finishedExport(B.patient.token);

  created(await send('PATCH', `/api/v1/practitioners/${deactivatedPractitioner.id}`, admin.token, { is_active: false }), 'deactivation');
  // No endpoint deactivates a patient's login: the account is switched off in the directory.
  await updateUser(deactivatedPatient.userId!, { active: false });
  const key = created(await send('POST', '/api/v1/practitioner_clients', inOrg.token, { name: 'isolation matrix' }), 'API key') as { id: number; clientId: string; key: string };
  const exchanged = created(await postForm('/o/token/', { grant_type: 'client_credentials' }, { authorization: `Basic ${key.key}` }), 'API key token');
  const apiKey = { id: key.id, clientId: key.clientId, token: (exchanged as { access_token: string }).access_token };
  return { o1, o2, A, B, inOrg, outOrg, admin, deactivatedPractitioner, deactivatedPatient, apiKey, portalClient, heartRate: await code(HEART_RATE) };
}
