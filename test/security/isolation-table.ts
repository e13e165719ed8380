/**
 * THE isolation table: for every route of every family, the request(s) to send, aimed at patient
 * A's data, and the exact status each caller must get. The test fails for a route without a row
 * and for a row without a route, so a new route cannot ship unlisted.
 *
 * Callers (see callers.ts): anonymous, patientA (the owner), patientB (another patient of the same
 * organization), inOrg (practitioner, member of that organization), outOrg (practitioner of
 * another organization), admin (manager there, superuser), apiKey (inOrg's API key),
 * deactivatedPractitioner and deactivatedPatient (accounts of that organization switched off after
 * their tokens were issued), foreignAudience (a token of this service's key for another audience).
 * `signedIn` gives anonymous, the two deactivated accounts and foreignAudience a 401.
 *
 * Conventions the cells follow (shared/auth/scope.ts): a single read of what the caller may not see
 * is a 404, exactly as for a missing id; so is a write aimed at a record the caller cannot see
 * (`/api/v1/` records, auxiliary rows). A write for a patient or through a FHIR Source the caller
 * may not use is a 403 (it never reveals who exists); so is a role too weak for a record the
 * caller can see. A practitioner naming an out-of-reach patient, organization or study in a search
 * gets 403; a patient naming someone else gets an empty result. FHIR interactions a type does not
 * offer are a 405 before anyone is asked.
 */
import { randomUUID } from 'node:crypto';
import { PROJECTION_TYPES } from '../../shared/auxiliary/accepted-types';
import { OMH_SYSTEM, SOURCE_HEADER, sourceUriPrefix, sourceUri } from '../../shared/fhir/constants';
import { config } from '../../shared/config';
import { MCP_PATH, PROTECTED_RESOURCE_PATH } from '../../shared/http/families';
import { CALLBACK_PATH, WEB_CLIENT_ID } from '../../shared/oauth/service-clients';
import { condition } from '../support/auxiliary';
import { batchOf, labObservation, observation } from '../support/observations';
import { pkcePair } from '../support/oauth';
import {
  freshApiKey,
  freshColleague,
  freshCondition,
  freshDevice,
  freshExport,
  freshInvitation,
  freshLabObservation,
  freshOutsider,
  freshPatient,
  freshSource,
  freshStudy,
} from './disposables';
import { REGISTERED_TYPES, typeFamilyOf } from './route-inventory';
import { apiJson, everyone, signedIn, type Probe, type Row } from './table-model';
import type { PatientSide, World } from './world';

// --- the cells used most ---------------------------------------------------------------------------

/** Something every valid token may call; what it returns is scoped (the leak check reads it). */
const ANY_SIGNED_IN = signedIn({ patientA: 200, patientB: 200, inOrg: 200, outOrg: 200, admin: 200, apiKey: 200 });

/** A read of A's data: A and A's organization see it; to anyone else it does not exist. */
const READ_A = signedIn({ patientA: 200, patientB: 404, inOrg: 200, outOrg: 404, admin: 200, apiKey: 200 });

/** Something of A's and B's organization (its practitioners, itself): both its patients see it. */
const READ_ORGANIZATION = signedIn({ patientA: 200, patientB: 200, inOrg: 200, outOrg: 404, admin: 200, apiKey: 200 });

/**
 * A search naming patient A (or A's organization or study): a patient naming someone else's gets
 * nothing; a practitioner naming what is out of reach, a 403.
 */
const SEARCH_NAMING_A = signedIn({ patientA: 200, patientB: 200, inOrg: 200, outOrg: 403, admin: 200, apiKey: 200 });

/** A FHIR write for A (or through A's FHIR Source): A and A's organization's members. */
const WRITE_FOR_A = (ok: number) => signedIn({ patientA: ok, patientB: 403, inOrg: ok, outOrg: 403, admin: ok, apiKey: ok });

/** A change of an auxiliary row of A's: anyone else cannot see the row. */
const CHANGE_A_ROW = (ok: number) => signedIn({ patientA: ok, patientB: 404, inOrg: ok, outOrg: 404, admin: ok, apiKey: ok });

/** An `/api/v1/` management write on A's record (or A's study): members of A's organization; patients never. */
const MANAGE_A = (ok: number) => signedIn({ patientA: 403, patientB: 403, inOrg: ok, outOrg: 404, admin: ok, apiKey: ok });

/** Practitioners only, whatever the record. */
const PRACTITIONERS = (ok: number) => signedIn({ patientA: 403, patientB: 403, inOrg: ok, outOrg: ok, admin: ok, apiKey: ok });

/** Superusers only. */
const SUPERUSER = (ok: number) => signedIn({ patientA: 403, patientB: 403, inOrg: 403, outOrg: 403, admin: ok, apiKey: 403 });

/** Managers of O1 only (O1 is out of outOrg's sight). */
const MANAGER_OF_O1 = (ok: number) => signedIn({ patientA: 403, patientB: 403, inOrg: 403, outOrg: 404, admin: ok, apiKey: 403 });

/** A kick-off every signed-in caller may make: it exports what they may see (their own data, for a patient). */
const ANY_SIGNED_IN_ACCEPTED = signedIn({ patientA: 202, patientB: 202, inOrg: 202, outOrg: 202, admin: 202, apiKey: 202 });

/** An export job: its starter alone sees it; to anyone else it does not exist. */
const OWN_EXPORT = (ok: number) => signedIn({ patientA: ok, patientB: 404, inOrg: 404, outOrg: 404, admin: 404, apiKey: 404 });

/** The OAuth endpoints that authenticate clients, not users: see the rows. */
const BEARER_IS_NO_CLIENT = { ...everyone(401), anonymous: 400 };

// --- requests ------------------------------------------------------------------------------------------

const fhir = (path: string) => `/FHIR/R5${path}`;
const throughSource = (side: PatientSide) => ({ [SOURCE_HEADER]: String(side.source.id) });
const fhirJson = (path: string, body: unknown, headers: Record<string, string> = {}): Probe => ({ path: fhir(path), body, headers });
const get = (path: string): Probe => ({ path });

/** A bulk export kick-off of patients and readings: a GET, or a POST with a Parameters body (optionally naming a patient). */
const exportKickOff = (method: 'GET' | 'POST', path: string, patient?: number): Probe =>
  method === 'GET'
    ? { path: fhir(`${path}?_type=Patient,Observation`), headers: { prefer: 'respond-async' } }
    : {
        path: fhir(path),
        headers: { prefer: 'respond-async' },
        body: { resourceType: 'Parameters', parameter: [{ name: '_type', valueString: 'Patient,Observation' }, ...(patient ? [{ name: 'patient', valueReference: { reference: `Patient/${patient}` } }] : [])] },
      };

/** `Observation/$stats` of a patient's heart rates over the last day: a GET, or a POST with a Parameters body. */
const statsOf = (method: 'GET' | 'POST', patient: number): Probe =>
  method === 'GET'
    ? { path: fhir(`/Observation/$stats?subject=Patient/${patient}&code=omh:heart-rate:2.0&duration=24&statistic=count`) }
    : {
        path: fhir('/Observation/$stats'),
        body: { resourceType: 'Parameters', parameter: [{ name: 'subject', valueReference: { reference: `Patient/${patient}` } }, { name: 'code', valueString: 'omh:heart-rate:2.0' }, { name: 'duration', valueDecimal: 24 }, { name: 'statistic', valueCode: 'count' }] },
      };

/** A's consent to the heart-rate code in A's study, as the consents endpoints take it. */
const consentBody = (w: World, consented?: boolean) => ({
  study_scope_consents: [
    { study_id: w.A.study.id, scope_consents: [{ coding_system: OMH_SYSTEM, coding_code: w.heartRate.code, ...(consented === undefined ? {} : { consented }) }] },
  ],
});

const PROJECTIONS = [...PROJECTION_TYPES];

/** The subject every stored Condition names upstream (the fixture's), the same for A's and B's. */
const UPSTREAM_SUBJECT = (condition().subject as { reference: string }).reference;

/** Per projection type: the id of something of A's (or of A's organization), and who may read it. */
const PROJECTION_READS: Record<string, { id: (w: World) => number; expect: typeof READ_A }> = {
  Patient: { id: (w) => w.A.patient.id, expect: READ_A },
  Group: { id: (w) => w.A.study.id, expect: READ_A },
  Device: { id: (w) => w.A.device.id, expect: READ_A },
  Organization: { id: (w) => w.o1.id, expect: READ_ORGANIZATION },
  Practitioner: { id: (w) => w.inOrg.id, expect: READ_ORGANIZATION },
};

/** What an MCP client sends with every message (Streamable HTTP). */
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
const MCP_METADATA = `${PROTECTED_RESOURCE_PATH}${MCP_PATH}`;

/** The tools that name a patient or a study, aimed at A's: the tools' own isolation facts (test/integration/mcp/tools.test.ts). */
const MCP_TOOL_CALLS: ReadonlyArray<[tool: string, does: string, args: (w: World) => Record<string, unknown>]> = [
  ['get_patient', "A's demographics", (w) => ({ patientId: w.A.patient.id })],
  ['get_readings', "A's readings as FHIR", (w) => ({ patientId: w.A.patient.id, format: 'fhir' })],
  ['summarize_patient_readings', "A's readings summarised", (w) => ({ patientId: w.A.patient.id })],
  ['clinical_record', "A's conditions", (w) => ({ patientId: w.A.patient.id, section: 'conditions' })],
  ['count_readings', "the readings of A's study", (w) => ({ studyId: w.A.study.id })],
  ['list_study_patients', "the patients of A's study", (w) => ({ studyId: w.A.study.id })],
];

/**
 * The FHIR `{type}` templates are expanded over every registered type where it is cheap and says
 * something (search, and a read by id); the other templates over every projection type,
 * Observation, and Condition for the auxiliary family: every auxiliary-only type is served by the
 * same handlers (`auxiliaryHandlers(type)`, the type only names the rows), which the test
 * checks, so one type stands for them all.
 */
export const AUXILIARY_STAND_IN = 'Condition';

// --- the table ----------------------------------------------------------------------------------------

export const TABLE: readonly Row[] = [
  // FHIR: discovery and the batch endpoint.
  { route: 'GET /FHIR/R5/metadata', does: 'read the CapabilityStatement', send: () => get(fhir('/metadata')), expect: everyone(200) },
  { route: 'GET /FHIR/R5/.well-known/smart-configuration', does: 'read the SMART configuration', send: () => get(fhir('/.well-known/smart-configuration')), expect: everyone(200) },
  { route: 'OPTIONS /FHIR/R5/.well-known/smart-configuration', does: 'preflight the SMART configuration', send: () => get(fhir('/.well-known/smart-configuration')), expect: everyone(204) },
  {
    route: 'POST /FHIR/R5',
    does: "upload a reading and a Condition for A in a batch (refused entry by entry: the batch itself answers 200)",
    send: (w) => fhirJson('', batchOf([observation(w.A), condition({ meta: { source: sourceUri(w.A.source.id) } })])),
    expect: ANY_SIGNED_IN,
    writers: ['patientA', 'inOrg', 'admin', 'apiKey'],
  },

  // FHIR: searches of every registered type (the leak check reads every answer).
  ...REGISTERED_TYPES.map((type): Row => ({ route: 'GET /FHIR/R5/{type}', type, does: `search ${type}`, send: () => get(fhir(`/${type}`)), expect: ANY_SIGNED_IN })),
  { route: 'GET /FHIR/R5/{type}', type: 'Patient', does: "search Patient by A's identifier", send: (w) => get(fhir(`/Patient?identifier=${encodeURIComponent(`${w.A.identifier.system}|${w.A.identifier.value}`)}`)), expect: ANY_SIGNED_IN },
  { route: 'GET /FHIR/R5/{type}', type: 'Group', does: "search the studies of patient A", send: (w) => get(fhir(`/Group?patient=${w.A.patient.id}`)), expect: SEARCH_NAMING_A },
  { route: 'GET /FHIR/R5/{type}', type: 'Observation', does: "search patient A's readings", send: (w) => get(fhir(`/Observation?patient=${w.A.patient.id}`)), expect: SEARCH_NAMING_A },
  { route: 'GET /FHIR/R5/{type}', type: 'Observation', does: "search the rows of A's FHIR Source", send: (w) => get(fhir(`/Observation?_source=${encodeURIComponent(sourceUri(w.A.source.id))}`)), expect: ANY_SIGNED_IN },
  { route: 'GET /FHIR/R5/{type}', type: 'Patient', does: "search Patient by A's id", send: (w) => get(fhir(`/Patient?_id=${w.A.patient.id}`)), expect: ANY_SIGNED_IN },
  { route: 'GET /FHIR/R5/{type}', type: 'Patient', does: "search the patients of A's organization", send: (w) => get(fhir(`/Patient?patient.organization=${w.o1.id}`)), expect: SEARCH_NAMING_A },
  ...(['Practitioner', 'Organization', 'Device'] as const).map(
    (type): Row => ({ route: 'GET /FHIR/R5/{type}', type, does: `search the ${type} resources of patient A`, send: (w) => get(fhir(`/${type}?patient=${w.A.patient.id}`)), expect: SEARCH_NAMING_A }),
  ),
  // An identifier is never a 403, not even out of reach: it only matches nothing.
  { route: 'GET /FHIR/R5/{type}', type: 'Observation', does: "search readings by A's identifier", send: (w) => get(fhir(`/Observation?patient.identifier=${encodeURIComponent(`${w.A.identifier.system}|${w.A.identifier.value}`)}`)), expect: ANY_SIGNED_IN },
  { route: 'GET /FHIR/R5/{type}', type: 'Observation', does: "search the readings of A's study", send: (w) => get(fhir(`/Observation?patient._has:Group:member:_id=${w.A.study.id}`)), expect: SEARCH_NAMING_A },
  { route: 'GET /FHIR/R5/{type}', type: 'Observation', does: "search the readings of A's organization", send: (w) => get(fhir(`/Observation?patient.organization=${w.o1.id}`)), expect: SEARCH_NAMING_A },
  { route: 'GET /FHIR/R5/{type}', type: 'Observation', does: "search readings by A as subject", send: (w) => get(fhir(`/Observation?subject=Patient/${w.A.patient.id}`)), expect: SEARCH_NAMING_A },
  { route: 'GET /FHIR/R5/{type}', type: 'Observation', does: "search readings of A's device", send: (w) => get(fhir(`/Observation?device=Device/${w.A.device.id}`)), expect: ANY_SIGNED_IN },
  { route: 'GET /FHIR/R5/{type}', type: 'Observation', does: "search a reading of A's by id", send: (w) => get(fhir(`/Observation?_id=${w.A.observationIds[0]}`)), expect: ANY_SIGNED_IN },
  { route: 'GET /FHIR/R5/{type}', type: 'Observation', does: "follow the next link of A's readings", send: (w) => get(w.A.nextPages.readings), expect: ANY_SIGNED_IN },
  { route: 'GET /FHIR/R5/{type}', type: 'Condition', does: "search patient A's Conditions", send: (w) => get(fhir(`/Condition?patient=${w.A.patient.id}`)), expect: SEARCH_NAMING_A },
  { route: 'GET /FHIR/R5/{type}', type: 'Condition', does: "search the Conditions of A's organization", send: (w) => get(fhir(`/Condition?patient.organization=${w.o1.id}`)), expect: SEARCH_NAMING_A },
  { route: 'GET /FHIR/R5/{type}', type: 'Condition', does: 'search the Conditions of every FHIR Source', send: () => get(fhir(`/Condition?_source:below=${encodeURIComponent(sourceUriPrefix())}`)), expect: ANY_SIGNED_IN },
  { route: 'GET /FHIR/R5/{type}', type: 'Condition', does: "search the Conditions of A's FHIR Source", send: (w) => get(fhir(`/Condition?_source=${encodeURIComponent(sourceUri(w.A.source.id))}`)), expect: ANY_SIGNED_IN },
  { route: 'GET /FHIR/R5/{type}', type: 'Condition', does: "search Conditions by the upstream subject that A's and B's share", send: () => get(fhir(`/Condition?subject=${encodeURIComponent(UPSTREAM_SUBJECT)}`)), expect: ANY_SIGNED_IN },
  { route: 'GET /FHIR/R5/{type}', type: 'Condition', does: "search A's Condition by id", send: (w) => get(fhir(`/Condition?_id=${w.A.conditionId}`)), expect: ANY_SIGNED_IN },
  { route: 'GET /FHIR/R5/{type}', type: 'Condition', does: "follow the next link of A's Conditions", send: (w) => get(w.A.nextPages.conditions), expect: ANY_SIGNED_IN },
  ...[...PROJECTIONS, 'Observation', AUXILIARY_STAND_IN].map((type): Row => ({ route: 'POST /FHIR/R5/{type}/_search', type, does: `search ${type} by POST`, send: () => ({ path: fhir(`/${type}/_search`) }), expect: ANY_SIGNED_IN })),

  // FHIR: reads by id. A's record of each projection type; A's readings and rows.
  ...PROJECTIONS.map((type): Row => ({ route: 'GET /FHIR/R5/{type}/{id}', type, does: `read ${type} of A`, send: (w) => get(fhir(`/${type}/${PROJECTION_READS[type]!.id(w)}`)), expect: PROJECTION_READS[type]!.expect })),
  { route: 'GET /FHIR/R5/{type}/{id}', type: 'Observation', does: "read A's reading", send: (w) => get(fhir(`/Observation/${w.A.observationIds[0]}`)), expect: READ_A },
  { route: 'GET /FHIR/R5/{type}/{id}', type: 'Observation', does: "read A's lab Observation (auxiliary)", send: (w) => get(fhir(`/Observation/${w.A.labObservationId}`)), expect: READ_A },
  { route: 'GET /FHIR/R5/{type}/{id}', type: AUXILIARY_STAND_IN, does: "read A's Condition", send: (w) => get(fhir(`/Condition/${w.A.conditionId}`)), expect: READ_A },
  // Every other auxiliary type: A's Condition id under that type is no resource of it, for anyone.
  ...REGISTERED_TYPES.filter((t) => typeFamilyOf(t) === 'auxiliary' && t !== AUXILIARY_STAND_IN).map(
    (type): Row => ({
      route: 'GET /FHIR/R5/{type}/{id}',
      type,
      does: `read A's Condition as a ${type}`,
      send: (w) => get(fhir(`/${type}/${w.A.conditionId}`)),
      expect: signedIn({ patientA: 404, patientB: 404, inOrg: 404, outOrg: 404, admin: 404, apiKey: 404 }),
    }),
  ),
  ...PROJECTIONS.map((type): Row => ({ route: 'GET /FHIR/R5/{type}/{id}/_history/{vid}', type, does: `read a version of ${type} of A`, send: (w) => get(fhir(`/${type}/${PROJECTION_READS[type]!.id(w)}/_history/1`)), expect: everyone(405) })),
  { route: 'GET /FHIR/R5/{type}/{id}/_history/{vid}', type: 'Observation', does: "read version 1 of A's reading", send: (w) => get(fhir(`/Observation/${w.A.observationIds[0]}/_history/1`)), expect: READ_A },
  { route: 'GET /FHIR/R5/{type}/{id}/_history/{vid}', type: 'Observation', does: "read version 1 of A's lab Observation", send: (w) => get(fhir(`/Observation/${w.A.labObservationId}/_history/1`)), expect: READ_A },
  { route: 'GET /FHIR/R5/{type}/{id}/_history/{vid}', type: AUXILIARY_STAND_IN, does: "read version 1 of A's Condition", send: (w) => get(fhir(`/Condition/${w.A.conditionId}/_history/1`)), expect: READ_A },

  // FHIR: creates.
  ...PROJECTIONS.filter((type) => type !== 'Device').map((type): Row => ({ route: 'POST /FHIR/R5/{type}', type, does: `create a ${type}`, send: () => fhirJson(`/${type}`, { resourceType: type }), expect: everyone(405) })),
  // A Device created through FHIR is one a FHIR Source sends (the auxiliary store's); the data sources are never written.
  { route: 'POST /FHIR/R5/{type}', type: 'Device', does: "create a Device through A's FHIR Source", send: (w) => fhirJson('/Device', { resourceType: 'Device', serialNumber: 'S-1' }, throughSource(w.A)), expect: WRITE_FOR_A(201) },
  { route: 'POST /FHIR/R5/{type}', type: 'Observation', does: 'create a reading for A', send: (w) => fhirJson('/Observation', observation(w.A)), expect: WRITE_FOR_A(201) },
  {
    route: 'POST /FHIR/R5/{type}',
    type: 'Observation',
    does: "create a reading for B that reuses the identifier of A's reading",
    send: (w) => fhirJson('/Observation', observation(w.B, { identifiers: [w.A.readingIdentifier] })),
    // Identifiers are unique across the store: the 409 says so, and nothing about the holder.
    expect: signedIn({ patientA: 403, patientB: 409, inOrg: 409, outOrg: 403, admin: 409, apiKey: 409 }),
  },
  { route: 'POST /FHIR/R5/{type}', type: AUXILIARY_STAND_IN, does: "create a Condition through A's FHIR Source", send: (w) => fhirJson('/Condition', condition(), throughSource(w.A)), expect: WRITE_FOR_A(201) },
  {
    route: 'POST /FHIR/R5/{type}',
    type: AUXILIARY_STAND_IN,
    does: "create a Condition naming A's FHIR Source in meta.source",
    send: (w) => fhirJson('/Condition', condition({ meta: { source: sourceUri(w.A.source.id) } })),
    expect: WRITE_FOR_A(201),
  },

  // FHIR: changes of one resource.
  ...PROJECTIONS.flatMap((type): Row[] =>
    (['PUT', 'PATCH', 'DELETE'] as const).map((method) => ({
      route: `${method} /FHIR/R5/{type}/{id}`,
      type,
      does: `${method} ${type} of A`,
      send: (w) => fhirJson(`/${type}/${PROJECTION_READS[type]!.id(w)}`, method === 'DELETE' ? undefined : { resourceType: type, id: String(PROJECTION_READS[type]!.id(w)) }),
      expect: everyone(405),
    })),
  ),
  ...(['PUT', 'PATCH', 'DELETE'] as const).map((method): Row => ({
    route: `${method} /FHIR/R5/{type}/{id}`,
    type: 'Observation',
    does: `${method} A's reading (never changed)`,
    send: (w) => fhirJson(`/Observation/${w.A.observationIds[0]}`, method === 'DELETE' ? undefined : { resourceType: 'Observation', id: w.A.observationIds[0], status: 'final' }),
    expect: everyone(405),
  })),
  { route: 'PUT /FHIR/R5/{type}/{id}', type: 'Observation', does: "replace A's lab Observation", send: (w) => fhirJson(`/Observation/${w.A.labObservationId}`, { ...labObservation(w.A), id: w.A.labObservationId }), expect: CHANGE_A_ROW(200) },
  { route: 'PATCH /FHIR/R5/{type}/{id}', type: 'Observation', does: "patch A's lab Observation", send: (w) => fhirJson(`/Observation/${w.A.labObservationId}`, { status: 'final' }, { 'content-type': 'application/merge-patch+json' }), expect: CHANGE_A_ROW(200) },
  { route: 'DELETE /FHIR/R5/{type}/{id}', type: 'Observation', does: "delete A's lab Observation", send: (w) => get(fhir(`/Observation/${w.A.labObservationId}`)), expect: CHANGE_A_ROW(204), fresh: freshLabObservation },
  { route: 'PUT /FHIR/R5/{type}/{id}', type: AUXILIARY_STAND_IN, does: "replace A's Condition", send: (w) => fhirJson(`/Condition/${w.A.conditionId}`, condition({ id: w.A.conditionId })), expect: CHANGE_A_ROW(200) },
  { route: 'PATCH /FHIR/R5/{type}/{id}', type: AUXILIARY_STAND_IN, does: "patch A's Condition", send: (w) => fhirJson(`/Condition/${w.A.conditionId}`, { recordedDate: '2019-05-02T10:00:00+02:00' }, { 'content-type': 'application/merge-patch+json' }), expect: CHANGE_A_ROW(200) },
  // A row stays with its FHIR Source, so it never changes hands: whoever can see it gets a 400.
  {
    route: 'PATCH /FHIR/R5/{type}/{id}',
    type: AUXILIARY_STAND_IN,
    does: "move A's Condition to B's FHIR Source (meta.source)",
    send: (w) => fhirJson(`/Condition/${w.A.conditionId}`, { meta: { source: sourceUri(w.B.source.id) } }, { 'content-type': 'application/merge-patch+json' }),
    expect: CHANGE_A_ROW(400),
  },
  {
    route: 'PUT /FHIR/R5/{type}/{id}',
    type: AUXILIARY_STAND_IN,
    does: "replace A's Condition through B's FHIR Source",
    send: (w) => fhirJson(`/Condition/${w.A.conditionId}`, condition({ id: w.A.conditionId }), throughSource(w.B)),
    expect: CHANGE_A_ROW(400),
  },
  { route: 'DELETE /FHIR/R5/{type}/{id}', type: AUXILIARY_STAND_IN, does: "delete A's Condition through B's FHIR Source", send: (w) => ({ path: fhir(`/Condition/${w.A.conditionId}`), headers: throughSource(w.B) }), expect: CHANGE_A_ROW(400) },
  { route: 'DELETE /FHIR/R5/{type}/{id}', type: AUXILIARY_STAND_IN, does: "delete A's Condition", send: (w) => get(fhir(`/Condition/${w.A.conditionId}`)), expect: CHANGE_A_ROW(204), fresh: freshCondition },

  // Bulk export: anyone signed in exports what they may see; a job is its starter's alone.
  ...(['GET', 'POST'] as const).flatMap((method): Row[] => [
    { route: `${method} /FHIR/R5/$export`, does: `start an export of everything (${method})`, send: () => exportKickOff(method, '/$export'), expect: ANY_SIGNED_IN_ACCEPTED },
    { route: `${method} /FHIR/R5/Patient/$export`, does: `start an export of every patient (${method})`, send: () => exportKickOff(method, '/Patient/$export'), expect: ANY_SIGNED_IN_ACCEPTED },
    {
      route: `${method} /FHIR/R5/Group/{id}/$export`,
      does: `start an export of A's study (${method})`,
      send: (w) => exportKickOff(method, `/Group/${w.A.study.id}/$export`),
      expect: signedIn({ patientA: 202, patientB: 404, inOrg: 202, outOrg: 404, admin: 202, apiKey: 202 }),
    },
  ]),
  { route: 'POST /FHIR/R5/Patient/$export', does: 'start an export naming patient A', send: (w) => exportKickOff('POST', '/Patient/$export', w.A.patient.id), expect: signedIn({ patientA: 202, patientB: 202, inOrg: 202, outOrg: 403, admin: 202, apiKey: 202 }) },
  // Statistics: who may ask is a search's rule for patient=<A> (patient B hears of no readings, not a refusal).
  ...(['GET', 'POST'] as const).map(
    (method): Row => ({ route: `${method} /FHIR/R5/Observation/$stats`, does: `statistics of A's heart rates (${method})`, send: (w) => statsOf(method, w.A.patient.id), expect: SEARCH_NAMING_A }),
  ),
  // The latest readings: a search's rule for patient=<A> too.
  { route: 'GET /FHIR/R5/Observation/$lastn', does: "the latest of A's readings", send: (w) => get(fhir(`/Observation/$lastn?patient=${w.A.patient.id}&max=2`)), expect: SEARCH_NAMING_A },
  {
    route: 'POST /FHIR/R5/Observation/$lastn',
    does: "the latest of A's heart rates (POST)",
    send: (w) => ({ path: fhir('/Observation/$lastn'), body: { resourceType: 'Parameters', parameter: [{ name: 'patient', valueReference: { reference: `Patient/${w.A.patient.id}` } }, { name: 'code', valueString: 'omh:heart-rate:2.0' }] } }),
    expect: SEARCH_NAMING_A,
  },
  // A's glucose sensor summary and its AGP report: the patient themself and A's organization; anyone else, patient or practitioner, is refused alike (whether the patient exists or not).
  ...(['GET', 'POST'] as const).flatMap((method) =>
    (['cgm-summary', 'cgm-report'] as const).map(
      (operation): Row => ({
        route: `${method} /FHIR/R5/Patient/{id}/$${operation}`,
        does: `A's glucose sensor ${operation === 'cgm-summary' ? 'summary' : 'AGP report'} (${method})`,
        send: (w) => (method === 'GET' ? get(fhir(`/Patient/${w.A.patient.id}/$${operation}?start=2026-01-01&end=2026-01-14&unit=mmol/L`)) : { path: fhir(`/Patient/${w.A.patient.id}/$${operation}`), body: { resourceType: 'Parameters', parameter: [{ name: 'start', valueDate: '2026-01-01' }, { name: 'end', valueDate: '2026-01-14' }, { name: 'unit', valueCode: 'mmol/L' }] } }),
        expect: signedIn({ patientA: 200, patientB: 403, inOrg: 200, outOrg: 403, admin: 200, apiKey: 200 }),
      }),
    ),
  ),
  // A's study's glucose table: the study's organization sees every participant, A their own row; no one else finds the study.
  ...(['GET', 'POST'] as const).map(
    (method): Row => ({
      route: `${method} /FHIR/R5/Group/{id}/$cgm-summary`,
      does: `the glucose table of A's study (${method})`,
      send: (w) => (method === 'GET' ? get(fhir(`/Group/${w.A.study.id}/$cgm-summary?start=2026-01-01&end=2026-01-14`)) : { path: fhir(`/Group/${w.A.study.id}/$cgm-summary`), body: { resourceType: 'Parameters', parameter: [{ name: 'start', valueDate: '2026-01-01' }, { name: 'end', valueDate: '2026-01-14' }] } }),
      expect: signedIn({ patientA: 200, patientB: 404, inOrg: 200, outOrg: 404, admin: 200, apiKey: 200 }),
    }),
  ),
  { route: 'GET /FHIR/R5/$export-status/{job}', does: "poll A's export", send: (w) => get(w.A.exportJob.status), expect: OWN_EXPORT(200) },
  { route: 'DELETE /FHIR/R5/$export-status/{job}', does: "cancel A's export", send: (w) => get(w.A.exportJob.status), expect: OWN_EXPORT(202), fresh: freshExport },
  { route: 'GET /FHIR/R5/$export-file/{job}/{file}', does: "download a file of A's export", send: (w) => get(w.A.exportJob.file), expect: OWN_EXPORT(307) },

  // R4 import: the FHIR Source header gates the whole request.
  {
    route: 'POST /fhir-import/R4',
    does: "import a Bundle through A's FHIR Source",
    send: (w) => ({ path: '/fhir-import/R4', body: { resourceType: 'Bundle', type: 'batch', entry: [{ resource: condition() }] }, headers: throughSource(w.A) }),
    expect: WRITE_FOR_A(200),
  },
  { route: 'POST /fhir-import/R4/{type}', does: "import a Condition through A's FHIR Source", send: (w) => ({ path: '/fhir-import/R4/Condition', body: condition(), headers: throughSource(w.A) }), expect: WRITE_FOR_A(200) },

  // /api/v1/patients
  { route: 'GET /health', does: 'ask for health', send: () => get('/health'), expect: everyone(200) },
  { route: 'GET /api/v1/patients', does: 'list patients', send: () => get('/api/v1/patients'), expect: ANY_SIGNED_IN },
  { route: 'GET /api/v1/patients', does: 'list patients naming A', send: (w) => get(`/api/v1/patients?patient_id=${w.A.patient.id}`), expect: SEARCH_NAMING_A },
  { route: 'GET /api/v1/patients', does: "list the patients of A's study", send: (w) => get(`/api/v1/patients?study_id=${w.A.study.id}`), expect: SEARCH_NAMING_A },
  { route: 'GET /api/v1/patients', does: "list the patients of A's organization", send: (w) => get(`/api/v1/patients?organization_id=${w.o1.id}`), expect: SEARCH_NAMING_A },
  { route: 'GET /api/v1/patients', does: "list patients by A's identifier", send: (w) => get(`/api/v1/patients?patient_identifier_value=${encodeURIComponent(w.A.identifier.value)}`), expect: ANY_SIGNED_IN },
  {
    route: 'POST /api/v1/patients',
    does: "create a patient in A's organization",
    send: (w) => apiJson('/api/v1/patients', { organization_id: w.o1.id, telecom_email: `new-${randomUUID()}@example.test` }),
    // Naming an organization in a create is a role check, so outOrg gets a 403 here.
    expect: signedIn({ patientA: 403, patientB: 403, inOrg: 201, outOrg: 403, admin: 201, apiKey: 201 }),
  },
  { route: 'GET /api/v1/patients/me', does: 'read my own patient record', send: () => get('/api/v1/patients/me'), expect: signedIn({ patientA: 200, patientB: 200, inOrg: 403, outOrg: 403, admin: 403, apiKey: 403 }) },
  { route: 'GET /api/v1/patients/{id}', does: "read A's record", send: (w) => get(`/api/v1/patients/${w.A.patient.id}`), expect: READ_A },
  {
    route: 'PUT /api/v1/patients/{id}',
    does: "replace A's record (with its own values)",
    send: (w) => apiJson(`/api/v1/patients/${w.A.patient.id}`, { telecom_email: w.A.patient.telecomEmail, name_family: w.A.patient.nameFamily, name_given: w.A.patient.nameGiven }),
    expect: MANAGE_A(200),
  },
  { route: 'PATCH /api/v1/patients/{id}', does: "change A's given name (to itself)", send: (w) => apiJson(`/api/v1/patients/${w.A.patient.id}`, { name_given: w.A.patient.nameGiven }), expect: MANAGE_A(200) },
  { route: 'DELETE /api/v1/patients/{id}', does: 'erase A', send: (w) => get(`/api/v1/patients/${w.A.patient.id}?organization_id=${w.o1.id}`), expect: MANAGE_A(204), fresh: freshPatient },
  {
    route: 'PATCH /api/v1/patients/{id}/global_add_organization',
    does: "pull A into O2 (outOrg's organization), to see A from there",
    send: (w) => get(`/api/v1/patients/${w.A.patient.id}/global_add_organization?organization_id=${w.o2.id}`),
    expect: signedIn({ patientA: 403, patientB: 403, inOrg: 403, outOrg: 404, admin: 403, apiKey: 403 }),
  },
  {
    route: 'PATCH /api/v1/patients/{id}/global_add_organization',
    does: 'add A to O1 again',
    send: (w) => get(`/api/v1/patients/${w.A.patient.id}/global_add_organization?organization_id=${w.o1.id}`),
    expect: MANAGE_A(400),
  },
  { route: 'GET /api/v1/patients/{id}/consents', does: "read A's consents", send: (w) => get(`/api/v1/patients/${w.A.patient.id}/consents`), expect: READ_A },
  {
    route: 'POST /api/v1/patients/{id}/consents',
    does: "record A's consent",
    send: (w) => apiJson(`/api/v1/patients/${w.A.patient.id}/consents`, consentBody(w, true)),
    expect: signedIn({ patientA: 201, patientB: 404, inOrg: 201, outOrg: 404, admin: 201, apiKey: 201 }),
  },
  {
    route: 'PATCH /api/v1/patients/{id}/consents',
    does: "change A's consent",
    send: (w) => apiJson(`/api/v1/patients/${w.A.patient.id}/consents`, consentBody(w, true)),
    expect: READ_A,
  },
  {
    route: 'DELETE /api/v1/patients/{id}/consents',
    does: "delete A's consent",
    send: (w) => apiJson(`/api/v1/patients/${w.A.patient.id}/consents`, consentBody(w)),
    expect: signedIn({ patientA: 204, patientB: 404, inOrg: 204, outOrg: 404, admin: 204, apiKey: 204 }),
    fresh: freshStudy,
  },

  // /api/v1/studies
  { route: 'GET /api/v1/studies', does: 'list studies', send: () => get('/api/v1/studies'), expect: ANY_SIGNED_IN },
  { route: 'GET /api/v1/studies', does: "list the studies of A's organization", send: (w) => get(`/api/v1/studies?organization_id=${w.o1.id}`), expect: SEARCH_NAMING_A },
  { route: 'POST /api/v1/studies', does: "create a study in A's organization", send: (w) => apiJson('/api/v1/studies', { name: 'Another study', organization: w.o1.id }), expect: signedIn({ patientA: 403, patientB: 403, inOrg: 201, outOrg: 403, admin: 201, apiKey: 201 }) },
  { route: 'GET /api/v1/studies/{id}', does: "read A's study", send: (w) => get(`/api/v1/studies/${w.A.study.id}`), expect: READ_A },
  { route: 'PUT /api/v1/studies/{id}', does: "replace A's study (with its own values)", send: (w) => apiJson(`/api/v1/studies/${w.A.study.id}`, { name: w.A.study.name, organization: w.o1.id }), expect: MANAGE_A(200) },
  { route: 'PATCH /api/v1/studies/{id}', does: "rename A's study (to its name)", send: (w) => apiJson(`/api/v1/studies/${w.A.study.id}`, { name: w.A.study.name }), expect: MANAGE_A(200) },
  { route: 'DELETE /api/v1/studies/{id}', does: "delete A's study", send: (w) => get(`/api/v1/studies/${w.A.study.id}`), expect: MANAGE_A(204), fresh: freshStudy },
  { route: 'GET /api/v1/studies/{id}/patients', does: "list the patients of A's study", send: (w) => get(`/api/v1/studies/${w.A.study.id}/patients`), expect: MANAGE_A(200) },
  { route: 'POST /api/v1/studies/{id}/patients', does: "enrol A in A's study again", send: (w) => apiJson(`/api/v1/studies/${w.A.study.id}/patients`, { patient_ids: [w.A.patient.id] }), expect: MANAGE_A(201) },
  { route: 'DELETE /api/v1/studies/{id}/patients', does: "end A's enrolment", send: (w) => apiJson(`/api/v1/studies/${w.A.study.id}/patients`, { patient_ids: [w.A.patient.id] }), expect: MANAGE_A(204), fresh: freshStudy },
  { route: 'GET /api/v1/studies/{id}/scope_requests', does: "list the codes A's study requests", send: (w) => get(`/api/v1/studies/${w.A.study.id}/scope_requests`), expect: READ_A },
  { route: 'POST /api/v1/studies/{id}/scope_requests', does: "request a code in A's study", send: (w) => apiJson(`/api/v1/studies/${w.A.study.id}/scope_requests`, { scope_code_id: w.heartRate.id }), expect: MANAGE_A(201) },
  { route: 'DELETE /api/v1/studies/{id}/scope_requests', does: "withdraw a code of A's study", send: (w) => apiJson(`/api/v1/studies/${w.A.study.id}/scope_requests`, { scope_code_id: w.heartRate.id }), expect: MANAGE_A(204), fresh: freshStudy },
  { route: 'GET /api/v1/studies/{id}/data_sources', does: "list the devices of A's study", send: (w) => get(`/api/v1/studies/${w.A.study.id}/data_sources`), expect: READ_A },
  { route: 'POST /api/v1/studies/{id}/data_sources', does: "add a device to A's study", send: (w) => apiJson(`/api/v1/studies/${w.A.study.id}/data_sources`, { data_source_id: w.A.device.id }), expect: MANAGE_A(201) },
  { route: 'DELETE /api/v1/studies/{id}/data_sources', does: "remove a device from A's study", send: (w) => apiJson(`/api/v1/studies/${w.A.study.id}/data_sources`, { data_source_id: w.A.device.id }), expect: MANAGE_A(204), fresh: freshStudy },

  // /api/v1/organizations
  { route: 'GET /api/v1/organizations', does: 'list organizations', send: () => get('/api/v1/organizations'), expect: ANY_SIGNED_IN },
  { route: 'GET /api/v1/organizations', does: "list the sub-organizations of A's organization", send: (w) => get(`/api/v1/organizations?part_of=${w.o1.id}`), expect: ANY_SIGNED_IN },
  {
    route: 'POST /api/v1/organizations',
    does: "create a sub-organization of A's organization",
    send: (w) => apiJson('/api/v1/organizations', { name: 'Sub-organization', type: 'team', part_of: w.o1.id }),
    expect: signedIn({ patientA: 403, patientB: 403, inOrg: 403, outOrg: 403, admin: 201, apiKey: 403 }),
  },
  { route: 'GET /api/v1/organizations/types', does: 'list organization types', send: () => get('/api/v1/organizations/types'), expect: ANY_SIGNED_IN },
  { route: 'GET /api/v1/organizations/{id}', does: "read A's organization", send: (w) => get(`/api/v1/organizations/${w.o1.id}`), expect: READ_ORGANIZATION },
  { route: 'PUT /api/v1/organizations/{id}', does: "replace A's organization (with its own values)", send: (w) => apiJson(`/api/v1/organizations/${w.o1.id}`, { name: w.o1.name, type: w.o1.type }), expect: MANAGER_OF_O1(200) },
  { route: 'PATCH /api/v1/organizations/{id}', does: "rename A's organization (to its name)", send: (w) => apiJson(`/api/v1/organizations/${w.o1.id}`, { name: w.o1.name }), expect: MANAGER_OF_O1(200) },
  // The admin may, but the organization still holds patients and studies: 409, nothing deleted.
  { route: 'DELETE /api/v1/organizations/{id}', does: "delete A's organization", send: (w) => get(`/api/v1/organizations/${w.o1.id}`), expect: MANAGER_OF_O1(409) },
  { route: 'GET /api/v1/organizations/{id}/tree', does: "read the tree of A's organization", send: (w) => get(`/api/v1/organizations/${w.o1.id}/tree`), expect: READ_ORGANIZATION },
  { route: 'GET /api/v1/organizations/{id}/users', does: "list the practitioners of A's organization", send: (w) => get(`/api/v1/organizations/${w.o1.id}/users`), expect: MANAGE_A(200) },
  { route: 'GET /api/v1/organizations/{id}/studies', does: "list the studies of A's organization", send: (w) => get(`/api/v1/organizations/${w.o1.id}/studies`), expect: READ_ORGANIZATION },
  {
    route: 'POST /api/v1/organizations/{id}/user',
    does: "let outOrg into A's organization",
    send: (w) => apiJson(`/api/v1/organizations/${w.o1.id}/user`, { user_id: w.outOrg.id, role: 'viewer' }),
    expect: MANAGER_OF_O1(201),
    fresh: freshOutsider,
  },
  {
    route: 'DELETE /api/v1/organizations/{id}/remove_user',
    does: "remove inOrg from A's organization",
    send: (w) => apiJson(`/api/v1/organizations/${w.o1.id}/remove_user`, { user_id: w.inOrg.id }),
    expect: MANAGER_OF_O1(204),
    fresh: freshColleague,
  },

  // /api/v1/practitioners
  { route: 'GET /api/v1/practitioners', does: 'list practitioners', send: () => get('/api/v1/practitioners'), expect: SUPERUSER(200) },
  { route: 'POST /api/v1/practitioners', does: 'create a practitioner', send: () => apiJson('/api/v1/practitioners', { telecom_email: `doctor-${randomUUID()}@example.test` }), expect: SUPERUSER(201) },
  { route: 'GET /api/v1/practitioners/{id}', does: "read inOrg's account", send: (w) => get(`/api/v1/practitioners/${w.inOrg.id}`), expect: signedIn({ patientA: 403, patientB: 403, inOrg: 200, outOrg: 403, admin: 200, apiKey: 200 }) },
  { route: 'PATCH /api/v1/practitioners/{id}', does: "change inOrg's given name (to itself)", send: (w) => apiJson(`/api/v1/practitioners/${w.inOrg.id}`, { name_given: w.inOrg.nameGiven }), expect: SUPERUSER(200) },
  { route: 'DELETE /api/v1/practitioners/{id}', does: "delete inOrg's account", send: (w) => get(`/api/v1/practitioners/${w.inOrg.id}`), expect: SUPERUSER(204), fresh: freshColleague },

  // /api/v1/data_sources: a catalogue every signed-in user reads; superusers change it.
  { route: 'GET /api/v1/data_sources', does: 'list devices', send: () => get('/api/v1/data_sources'), expect: ANY_SIGNED_IN },
  { route: 'POST /api/v1/data_sources', does: 'create a device', send: () => apiJson('/api/v1/data_sources', { name: 'Another device', type: 'personal_device' }), expect: SUPERUSER(201) },
  { route: 'GET /api/v1/data_sources/all_scopes', does: 'list every code', send: () => get('/api/v1/data_sources/all_scopes'), expect: ANY_SIGNED_IN },
  { route: 'GET /api/v1/data_sources/{id}', does: "read A's device", send: (w) => get(`/api/v1/data_sources/${w.A.device.id}`), expect: ANY_SIGNED_IN },
  { route: 'PUT /api/v1/data_sources/{id}', does: "replace A's device (with its own values)", send: (w) => apiJson(`/api/v1/data_sources/${w.A.device.id}`, { name: w.A.device.name, type: w.A.device.type }), expect: SUPERUSER(200) },
  { route: 'PATCH /api/v1/data_sources/{id}', does: "rename A's device (to its name)", send: (w) => apiJson(`/api/v1/data_sources/${w.A.device.id}`, { name: w.A.device.name }), expect: SUPERUSER(200) },
  { route: 'DELETE /api/v1/data_sources/{id}', does: "delete A's device", send: (w) => get(`/api/v1/data_sources/${w.A.device.id}`), expect: SUPERUSER(204), fresh: freshDevice },
  { route: 'GET /api/v1/data_sources/{id}/supported_scopes', does: "list the codes of A's device", send: (w) => get(`/api/v1/data_sources/${w.A.device.id}/supported_scopes`), expect: ANY_SIGNED_IN },
  { route: 'POST /api/v1/data_sources/{id}/supported_scopes', does: "add a code to A's device", send: (w) => apiJson(`/api/v1/data_sources/${w.A.device.id}/supported_scopes`, { scope_code_id: w.heartRate.id }), expect: SUPERUSER(201) },
  { route: 'DELETE /api/v1/data_sources/{id}/supported_scopes', does: "remove a code from A's device", send: (w) => apiJson(`/api/v1/data_sources/${w.A.device.id}/supported_scopes`, { scope_code_id: w.heartRate.id }), expect: SUPERUSER(204), fresh: freshDevice },

  // /api/v1/fhir_sources: each patient's own, and no one else's (practitioners included).
  { route: 'GET /api/v1/fhir_sources', does: 'list FHIR Sources', send: () => get('/api/v1/fhir_sources'), expect: ANY_SIGNED_IN },
  {
    route: 'POST /api/v1/fhir_sources',
    does: "register a FHIR Source with A's device",
    send: (w) => apiJson('/api/v1/fhir_sources', { data_source: w.A.device.id, label: 'Another EHR' }),
    expect: signedIn({ patientA: 201, patientB: 201, inOrg: 403, outOrg: 403, admin: 403, apiKey: 403 }),
  },
  { route: 'GET /api/v1/fhir_sources/{id}', does: "read A's FHIR Source", send: (w) => get(`/api/v1/fhir_sources/${w.A.source.id}`), expect: signedIn({ patientA: 200, patientB: 404, inOrg: 404, outOrg: 404, admin: 404, apiKey: 404 }) },
  {
    route: 'PUT /api/v1/fhir_sources/{id}',
    does: "replace A's FHIR Source (with its own values)",
    send: (w) => apiJson(`/api/v1/fhir_sources/${w.A.source.id}`, { data_source: w.A.device.id, label: w.A.source.label, fhir_base_url: w.A.source.fhirBaseUrl }),
    expect: signedIn({ patientA: 200, patientB: 404, inOrg: 404, outOrg: 404, admin: 404, apiKey: 404 }),
  },
  { route: 'PATCH /api/v1/fhir_sources/{id}', does: "relabel A's FHIR Source (to its label)", send: (w) => apiJson(`/api/v1/fhir_sources/${w.A.source.id}`, { label: w.A.source.label }), expect: signedIn({ patientA: 200, patientB: 404, inOrg: 404, outOrg: 404, admin: 404, apiKey: 404 }) },
  { route: 'DELETE /api/v1/fhir_sources/{id}', does: "delete A's FHIR Source", send: (w) => get(`/api/v1/fhir_sources/${w.A.source.id}`), expect: signedIn({ patientA: 204, patientB: 404, inOrg: 404, outOrg: 404, admin: 404, apiKey: 404 }), fresh: freshSource },

  // /api/v1/users and the portal's identifier.
  { route: 'GET /api/v1/users/profile', does: 'read my profile', send: () => get('/api/v1/users/profile'), expect: ANY_SIGNED_IN },
  { route: 'GET /api/v1/users/organizations', does: 'list my organizations', send: () => get('/api/v1/users/organizations'), expect: ANY_SIGNED_IN },
  {
    route: 'POST /api/v1/portal/identifier',
    does: "claim A's identifier",
    send: (w) => apiJson('/api/v1/portal/identifier', w.A.identifier),
    // The portal's answers: 409 when the identifier is another patient's, 400 for a non-patient.
    expect: signedIn({ patientA: 200, patientB: 409, inOrg: 400, outOrg: 400, admin: 400, apiKey: 400 }),
  },
  // The hospital directory is the same for everyone signed in (it holds no one's data).
  { route: 'GET /api/v1/portal/brands', does: 'search the hospital directory', send: () => get('/api/v1/portal/brands?q=hospital'), expect: ANY_SIGNED_IN },

  // /api/v1/invitation
  {
    route: 'POST /api/v1/invitation',
    does: 'issue an invitation for A',
    send: (w) => apiJson('/api/v1/invitation', { patient_id: w.A.patient.id, client_id: w.portalClient }),
    expect: signedIn({ patientA: 403, patientB: 403, inOrg: 201, outOrg: 403, admin: 201, apiKey: 201 }),
  },
  { route: 'GET /api/v1/invitation', does: "list A's invitations", send: (w) => get(`/api/v1/invitation?patient_id=${w.A.patient.id}`), expect: MANAGE_A(200) },
  // Redeeming takes the invitation's secret token, never its id: an id redeems nothing, for anyone.
  { route: 'POST /api/v1/invitation/{ref}', does: "redeem A's invitation by its id", send: (w) => ({ path: `/api/v1/invitation/${w.A.invitationId}` }), expect: everyone(404) },
  { route: 'DELETE /api/v1/invitation/{ref}', does: "cancel A's invitation", send: (w) => get(`/api/v1/invitation/${w.A.invitationId}`), expect: MANAGE_A(204), fresh: freshInvitation },

  // /api/v1/practitioner_clients: each practitioner's own API keys.
  { route: 'GET /api/v1/practitioner_clients', does: 'list my API keys', send: () => get('/api/v1/practitioner_clients'), expect: PRACTITIONERS(200) },
  // A key that could mint keys would outlive its own deletion: only a signed-in practitioner creates one.
  { route: 'POST /api/v1/practitioner_clients', does: 'create an API key', send: () => apiJson('/api/v1/practitioner_clients', { name: 'another key' }), expect: { ...PRACTITIONERS(201), apiKey: 403 } },
  {
    route: 'DELETE /api/v1/practitioner_clients/{id}',
    does: "delete inOrg's API key",
    send: (w) => get(`/api/v1/practitioner_clients/${w.apiKey.id}`),
    expect: signedIn({ patientA: 403, patientB: 403, inOrg: 204, outOrg: 404, admin: 404, apiKey: 204 }),
    fresh: freshApiKey,
  },

  // OAuth: a bearer token is no client credential and no sign-in.
  // RFC 6749: no client authentication at all is a 400 (client_id is required); an Authorization
  // header that is not Basic client credentials (any bearer token) is a 401 invalid_client.
  { route: 'POST /o/token/', does: 'get a token by client credentials, with a bearer token for client credentials', send: () => ({ path: '/o/token/', body: { grant_type: 'client_credentials' }, form: true }), expect: BEARER_IS_NO_CLIENT },
  { route: 'OPTIONS /o/token/', does: 'preflight the token endpoint', send: () => get('/o/token/'), expect: everyone(204) },
  { route: 'POST /o/revoke_token/', does: "revoke A's token with a bearer token for client credentials", send: (w) => ({ path: '/o/revoke_token/', body: { token: w.A.patient.token }, form: true }), expect: BEARER_IS_NO_CLIENT },
  { route: 'OPTIONS /o/revoke_token/', does: 'preflight revocation', send: () => get('/o/revoke_token/'), expect: everyone(204) },
  // Registration (RFC 7591) is open to anyone, whatever token they carry: it grants nothing until a person signs in.
  { route: 'POST /o/register/', does: 'register a public client', send: () => apiJson('/o/register/', { redirect_uris: ['https://app.example/cb'] }), expect: everyone(201) },
  { route: 'OPTIONS /o/register/', does: 'preflight registration', send: () => get('/o/register/'), expect: everyone(204) },
  { route: 'GET /o/userinfo/', does: 'read who I am', send: () => get('/o/userinfo/'), expect: ANY_SIGNED_IN },
  { route: 'OPTIONS /o/userinfo/', does: 'preflight userinfo', send: () => get('/o/userinfo/'), expect: everyone(204) },
  ...['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration', '/o/.well-known/openid-configuration', '/.well-known/smart-configuration', '/o/.well-known/jwks.json'].flatMap((path): Row[] => [
    { route: `GET ${path}`, does: `read ${path}`, send: () => get(path), expect: everyone(200) },
    { route: `OPTIONS ${path}`, does: `preflight ${path}`, send: () => get(path), expect: everyone(204) },
  ]),
  { route: 'GET /o/authorize/', does: 'open the sign-in page', send: () => get(`/o/authorize/?${authorizeQuery()}`), expect: everyone(200) },
  {
    route: 'POST /o/authorize/',
    does: "sign in as A without the sign-in form's cookie",
    send: (w) => ({ path: '/o/authorize/', body: { ...Object.fromEntries(new URLSearchParams(authorizeQuery())), email: w.A.patient.telecomEmail, password: 'not the password' }, form: true }),
    expect: everyone(403),
  },
  { route: 'GET /auth/callback', does: 'open the sign-in callback page', send: () => get('/auth/callback'), expect: everyone(200) },
  // Consent and connected applications: a bearer token is no sign-in session, and no post passes without the page's CSRF value.
  { route: 'POST /o/consent/', does: 'allow a consent page without its session or cookie', send: () => ({ path: '/o/consent/', body: { session: 'A'.repeat(43), csrf: 'forged', decision: 'allow' }, form: true }), expect: everyone(403) },
  { route: 'GET /o/connections/', does: 'open the connected applications page (its sign-in form)', send: () => get('/o/connections/'), expect: everyone(200) },
  {
    route: 'POST /o/connections/',
    does: "sign in as A to the connected applications page without the form's cookie",
    send: (w) => ({ path: '/o/connections/', body: { csrf: 'forged', email: w.A.patient.telecomEmail, password: 'not the password' }, form: true }),
    expect: everyone(403),
  },
  { route: 'POST /o/connections/withdraw/', does: 'withdraw an approval without a session', send: () => ({ path: '/o/connections/withdraw/', body: { csrf: 'forged', client_id: WEB_CLIENT_ID, resource: 'mcp' }, form: true }), expect: everyone(403) },
  { route: 'POST /o/connections/sign-out/', does: 'sign out of the connected applications page without a session', send: () => ({ path: '/o/connections/sign-out/', body: { csrf: 'forged' }, form: true }), expect: everyone(403) },
  // An invited patient's password: only the invitation sets it, and no post passes without the form's cookie.
  { route: 'GET /o/password/', does: 'open the page where an invited patient sets a password', send: () => get('/o/password/'), expect: everyone(200) },
  {
    route: 'POST /o/password/',
    does: "set A's password without the form's cookie",
    send: () => ({ path: '/o/password/', body: { csrf: 'forged', invitation: 'A'.repeat(32), password: 'a new password of A', repeated: 'a new password of A' }, form: true }),
    expect: everyone(403),
  },

  // /mcp: a tool's refusal is a tool result (200), so the status says little: the leak check reads
  // each answer (an out-of-reach patient or study answers as an unknown id), and no caller writes.
  ...MCP_TOOL_CALLS.map(([tool, does, args]): Row => ({
    route: 'POST /mcp',
    does: `call ${tool}: ${does}`,
    send: (w) => ({ path: MCP_PATH, body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args(w) } }, headers: MCP_HEADERS }),
    expect: ANY_SIGNED_IN,
    writers: [],
  })),
  { route: `OPTIONS ${MCP_PATH}`, does: 'ask which methods /mcp has (no Origin: no preflight)', send: () => get(MCP_PATH), expect: everyone(204) },
  { route: `GET ${MCP_METADATA}`, does: "read /mcp's protected resource metadata", send: () => get(MCP_METADATA), expect: everyone(200) },
  { route: `OPTIONS ${MCP_METADATA}`, does: "preflight /mcp's protected resource metadata", send: () => get(MCP_METADATA), expect: everyone(204) },
];

/** A valid authorization request of the service's web client. */
function authorizeQuery(): string {
  const { challenge } = pkcePair();
  return new URLSearchParams({
    response_type: 'code',
    client_id: WEB_CLIENT_ID,
    redirect_uri: `${config().siteUrl}${CALLBACK_PATH}`,
    scope: 'openid email',
    state: 'isolation',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();
}
