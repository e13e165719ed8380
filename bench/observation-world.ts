/**
 * What the observation benchmarks share: a directory world whose patients may upload heart-rate
 * readings, the FHIR handler called in-process as API Gateway calls it, and the readings and batch
 * Bundles a device sends.
 */
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { fromResult, lambdaContext, toEvent } from '../local/api-gateway-event';
import { loadHandlers } from '../local/handlers';
import type { TokenResource } from '../shared/auth/claims';
import { issueAccessToken } from '../shared/auth/tokens';
import { ensureCodes } from '../shared/directory/code-table';
import { DEMO_CODES, SEEDED_CODES } from '../shared/directory/codes';
import { recordConsents } from '../shared/directory/consents';
import { createDataSource } from '../shared/directory/data-sources';
import type { Code, Id } from '../shared/directory/model';
import { createOrganization } from '../shared/directory/organizations';
import { createPatient } from '../shared/directory/patients';
import { addStudyCode, createStudy, enrollPatients } from '../shared/directory/studies';
import { createPractitioner } from '../shared/directory/users';
import type { LambdaHandler } from '../shared/http/handler';
import { sampleAttachment } from '../shared/omh/samples';
import type { StoredObservation } from '../shared/observations/model';
import { dayOf, summariseDayAndHours } from '../shared/observations/stats/day-summary';
import { observationStore } from '../shared/observations/store/current';
import { summaryStore } from '../shared/observations/store/summary-current';
import { keptValues } from '../shared/observations/values';
import { liftEffectiveTime } from '../shared/omh/effective-time';
import { config } from '../shared/config';
import { blockOrder } from '../shared/observations/store/block-codec';
import { blockBytes, blockItem, SEGMENT_BYTES, type BlockItem } from '../shared/observations/store/block-items';
import { blockKeys, stretchFromText, stretchOf, stretchText, type StretchRef } from '../shared/observations/store/block-keys';
import { pointerItems } from '../shared/observations/store/block-pointers';
import { batchWriteAll } from '../shared/store/batch';
import { dynamo } from '../shared/store/clients';

export const HR = 'omh:heart-rate:2.0';
export const HOUR = 3_600_000;

let handler: LambdaHandler | undefined;

async function call(method: string, url: string, token: string, body?: unknown, extraHeaders: Record<string, string> = {}) {
  handler ??= (await loadHandlers()).fhir;
  const headers: Record<string, string> = { host: 'localhost', authorization: `Bearer ${token}`, ...extraHeaders };
  if (body !== undefined) headers['content-type'] = 'application/fhir+json';
  const event = toEvent({ method, url, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  return handler(event, lambdaContext('bench'));
}

/** The handler's answer as the local gateway sends it (status, headers, body bytes), without parsing it. */
export async function send(method: string, url: string, token: string, body?: unknown, extraHeaders: Record<string, string> = {}) {
  return fromResult(await call(method, url, token, body, extraHeaders));
}

/** The handler's result itself (status and body text, as API Gateway receives them): what the service's own path ends with. */
export async function answer(method: string, url: string, token: string): Promise<{ status: number; text: string }> {
  const result = (await call(method, url, token)) as { statusCode?: number; body?: string };
  return { status: result.statusCode ?? 200, text: result.body ?? '' };
}

export async function invoke(method: string, url: string, token: string, body?: unknown) {
  const res = await send(method, url, token, body);
  return { status: res.status, json: JSON.parse(res.body.toString('utf8')) };
}

export interface World {
  organization: Id;
  device: Id;
  practitioner: string;
  /** A fresh token of the practitioner (a token lives 15 minutes; a long setup outlives the first), for the APIs or for `/mcp`. */
  practitionerToken: (resource?: TokenResource) => Promise<string>;
  /** The study every patient is enrolled in. */
  study: Id;
  codes: Code[];
  newPatient: () => Promise<Id>;
  /** A patient with a login, and their access token. */
  newPatientWithLogin: () => Promise<{ id: Id; token: string }>;
}

/** A world whose patients consent to share `consented` codes (heart rate by default) with its study. */
export async function world(consented: readonly string[] = [HR]): Promise<World> {
  const codes = await ensureCodes([...SEEDED_CODES, ...DEMO_CODES]);
  const org = await createOrganization({ name: 'Bench', type: 'prov' });
  const practitioner = await createPractitioner({ email: `bench-${randomUUID()}@example.test`, organizations: [{ organizationId: org.id, role: 'member' }] });
  const device = await createDataSource({ name: 'Bench wearable', type: 'personal_device' });
  const shared = consented.map((code) => codes.find((c) => c.code === code)!);
  const study = await createStudy({ organizationId: org.id, name: 'Bench', description: '' });
  for (const code of shared) await addStudyCode(study.id, code.id);
  const practitionerToken = async (resource?: TokenResource) =>
    (await issueAccessToken({ userId: practitioner.id, kind: 'practitioner', scope: 'openid', lifetimeSeconds: 3600, ...(resource ? { resource } : {}) })).accessToken;
  const accessToken = await practitionerToken();
  const enrolled = async (account?: { email: string }) => {
    const patient = await createPatient({ nameFamily: 'Bench', nameGiven: 'P', organizationIds: [org.id], ...(account ? { account } : {}) });
    await enrollPatients(study.id, [patient.id]);
    await recordConsents(patient.id, shared.map((code) => ({ studyId: study.id, codeId: code.id, consented: true })));
    return patient;
  };
  return {
    organization: org.id,
    device: device.id,
    practitioner: accessToken,
    practitionerToken,
    study: study.id,
    codes,
    newPatient: async () => (await enrolled()).id,
    newPatientWithLogin: async () => {
      const patient = await enrolled({ email: `bench-${randomUUID()}@example.test` });
      const { accessToken } = await issueAccessToken({ userId: patient.userId!, kind: 'patient', patientId: patient.id, scope: 'openid', lifetimeSeconds: 3600 });
      return { id: patient.id, token: accessToken };
    },
  };
}

/** A heart-rate reading at `at`; the same `uuid` makes it the same reading again. */
export function reading(w: World, patientId: Id, at: number, uuid?: string) {
  return {
    resourceType: 'Observation',
    status: 'final',
    code: { coding: [{ system: 'https://w3id.org/openmhealth', code: HR }] },
    subject: { reference: `Patient/${patientId}` },
    device: { reference: `Device/${w.device}` },
    valueAttachment: sampleAttachment(HR, { at, form: 'date_time', ...(uuid ? { uuid } : {}) }),
  };
}

export const batch = (resources: unknown[]) => ({ resourceType: 'Bundle', type: 'batch', entry: resources.map((resource) => ({ resource, request: { method: 'POST', url: 'Observation' } })) });

/** Posts one batch through the handler as the practitioner; throws unless every entry answers `status`. */
export async function postBatch(w: World, resources: unknown[], status: '201 Created' | '200 OK'): Promise<void> {
  const res = await invoke('POST', '/FHIR/R5', w.practitioner, batch(resources));
  const answered = res.json.entry?.filter((e: { response: { status: string } }) => e.response.status === status).length;
  if (res.status !== 200 || answered !== resources.length) throw new Error(`upload failed (wanted ${status}): ${JSON.stringify(res.json).slice(0, 400)}`);
}

/** The block of a stretch as one segment, or as many as `SEGMENT_BYTES` needs (each made by the store's own `blockItem`). */
function segmentsOf(patientId: Id, ref: StretchRef, readings: readonly StoredObservation[]): BlockItem[] {
  const whole = blockItem(patientId, ref, 0, readings, 1);
  if (blockBytes(whole) <= SEGMENT_BYTES) return [whole];
  const items: BlockItem[] = [];
  let current: StoredObservation[] = [];
  for (const r of readings) {
    if (current.length > 0 && blockBytes(blockItem(patientId, ref, items.length, [...current, r], 1)) > SEGMENT_BYTES) {
      items.push(blockItem(patientId, ref, items.length, current, 1));
      current = [];
    }
    current.push(r);
  }
  if (current.length > 0) items.push(blockItem(patientId, ref, items.length, current, 1));
  return items;
}

/**
 * What the store keeps for readings of one patient stored in one go (layout 3, `block-keys.ts`):
 * each stretch's blocks, a uuid claim per reading (its id, stretch and time of storing), the id
 * ranges and the update log (`pointerItems`), and the code in the patient's code set; written by
 * BatchWriteItem without the write path's conditions, as `insert` would leave them (which sends a
 * conditional put a reading: ten times slower here, and half an hour for the assistants' bench).
 */
async function writeAsStored(patientId: Id, readings: readonly StoredObservation[]): Promise<void> {
  const stretches = new Map<string, StoredObservation[]>();
  for (const o of [...readings].sort(blockOrder)) {
    const text = stretchText({ codeId: o.codeId, stretch: stretchOf(o.effective?.start) });
    const group = stretches.get(text);
    if (group) group.push(o);
    else stretches.set(text, [o]);
  }
  const blocks = [...stretches].flatMap(([text, group]) => segmentsOf(patientId, stretchFromText(text), group));
  const claims = readings.map((o) => ({ ...blockKeys.claim(patientId, o.uuid), id: o.id, st: stretchText({ codeId: o.codeId, stretch: stretchOf(o.effective?.start) }), at: o.lastUpdated }));
  const pointers = pointerItems(readings.map((o) => ({ id: o.id, patientId, lastUpdated: o.lastUpdated, ref: { codeId: o.codeId, stretch: stretchOf(o.effective?.start) } })));
  const failed = await batchWriteAll(config().observationsTable, [...pointers, ...claims, ...blocks].map((Item) => ({ PutRequest: { Item } })), 8);
  if (failed.length > 0) throw new Error(`${failed.length} items not written`);
  const codes = new Set(readings.map((o) => o.codeId));
  await dynamo().send(new UpdateCommand({ TableName: config().observationsTable, Key: blockKeys.span(patientId), UpdateExpression: 'ADD codes :codes', ExpressionAttributeValues: { ':codes': codes } }));
}

/** What the upload path keeps of a reading whose payload (base64 JSON, as `valueAttachment.data`) is `data`: its uuid, effective time and lifted values (`native-entry.ts`). */
export function storedReadingOf(fields: Pick<StoredObservation, 'id' | 'patientId' | 'codeId' | 'deviceId' | 'data' | 'lastUpdated'>, schemaCode: string): StoredObservation {
  const payload = JSON.parse(Buffer.from(fields.data, 'base64').toString('utf8'));
  return { ...fields, status: 'final', identifiers: [], uuid: payload.header.uuid, effective: liftEffectiveTime(payload.body), values: keptValues(schemaCode, payload.body) };
}

/**
 * Readings of one patient and one code written as the store keeps them (`writeAsStored`), and the
 * summaries of their days kept through the summary store, each the domain's `summariseDayAndHours` of the
 * day's readings (with a glucose sensor's digest), as an upload keeps them after its rows are
 * written (`keepDaySummaries` recomputes a day from its stored rows: these same readings).
 */
export async function keepAsStored(patientId: Id, schemaCode: string, readings: readonly StoredObservation[]): Promise<void> {
  await writeAsStored(patientId, readings);
  const days = new Map<string, StoredObservation[]>();
  for (const o of readings) {
    const day = dayOf(o.effective!.start);
    if (!days.has(day)) days.set(day, []);
    days.get(day)!.push(o);
  }
  for (const [day, rows] of days) {
    const { summary, hours } = summariseDayAndHours({ patientId, codeId: rows[0]!.codeId, day }, rows, schemaCode);
    await summaryStore().keep(summary, 'from-more-readings', hours);
  }
}

/**
 * `count` heart-rate readings of a patient a minute apart from 2024-01-01, kept as an upload keeps
 * them (`keepAsStored`): what the export benches read and what `$stats` and the counts find,
 * without the upload's per-batch work. Returns the readings.
 */
export async function storeRawReadings(w: World, patientId: Id, count: number): Promise<StoredObservation[]> {
  const hr = w.codes.find((c) => c.code === HR)!;
  const lastUpdated = new Date(Date.now() - 60_000).toISOString();
  const ids = await observationStore().newIds(count);
  const readings = ids.map((id, i) =>
    storedReadingOf({ id, patientId, codeId: hr.id, deviceId: w.device, data: sampleAttachment(HR, { at: Date.UTC(2024, 0, 1) + i * 60_000, form: 'date_time' }).data, lastUpdated }, HR),
  );
  await keepAsStored(patientId, HR, readings);
  return readings;
}
