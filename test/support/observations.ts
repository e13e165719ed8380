/**
 * Mobile-health Observations for tests, in a line each:
 *
 *   const world = await observationWorld();                  // org, practitioner, patient with a login, device, consent to every code
 *   const obs = observation(world, { code: 'omh:heart-rate:2.0', at: Date.UTC(2025, 0, 1), form: 'start_end' });
 *   const res = await upload(world.patient.token, [obs, obs2]);   // POST /FHIR/R5 with a batch Bundle
 *   const page = await search(world.practitioner.token, 'code=omh:heart-rate:2.0&_count=5');
 */
import { OMH_SYSTEM } from '../../shared/fhir/constants';
import { DEMO_CODES, IEEE_SYSTEM, SEEDED_CODES } from '../../shared/directory/codes';
import { sampleAttachment, type EffectiveForm } from '../../shared/omh/samples';
import { schemaForCode } from '../../shared/omh/schemas/index';
import type { DataSource, Organization, Patient, Practitioner } from '../../shared/directory/model';
import { call, type TestResponse } from './invoke';
import { makeDataSource, makeOrganization, makePatient, makePractitioner, makeStudy, type WithToken } from './directory';
import { twinRecords, twinsInUse } from './store';

/** The code table's mobile-health codes (those with a payload schema): what devices upload. */
export const TABLE_CODES: readonly string[] = [...SEEDED_CODES, ...DEMO_CODES].filter((c) => schemaForCode(c.code)).map((c) => c.code);

export interface ObservationWorld {
  organization: Organization;
  practitioner: Practitioner & WithToken;
  patient: Patient & WithToken;
  device: DataSource;
}

/** An organization with a practitioner (member), a patient with a login consenting to every code, and a personal device. */
export async function observationWorld(options: { codes?: readonly string[] } = {}): Promise<ObservationWorld> {
  const organization = await makeOrganization();
  const practitioner = await makePractitioner({ organizations: [organization] });
  const patient = (await makePatient({ organizations: [organization], login: true })) as Patient & WithToken;
  const device = await makeDataSource({ codes: options.codes ?? TABLE_CODES });
  await makeStudy({ organization, codes: options.codes ?? TABLE_CODES, patients: [patient], consent: true, dataSources: [device] });
  return { organization, practitioner, patient, device };
}

export const systemOf = (code: string) => (code.startsWith('ieee:') ? IEEE_SYSTEM : OMH_SYSTEM);

export interface ObservationOptions {
  code?: string;
  at?: number;
  form?: EffectiveForm;
  spanMinutes?: number;
  uuid?: string;
  patientId?: number;
  deviceId?: number;
  identifiers?: Array<{ system?: string; value: string }>;
  status?: string;
  /** Body members to set (`{ heart_rate: { value: 134, unit: 'beats/min' } }`) over the sample's. */
  members?: Record<string, unknown>;
}

/** An Observation resource as a device uploads it. */
export function observation(world: Pick<ObservationWorld, 'patient' | 'device'>, o: ObservationOptions = {}): Record<string, unknown> {
  const code = o.code ?? 'omh:heart-rate:2.0';
  return {
    resourceType: 'Observation',
    status: o.status ?? 'final',
    ...(o.identifiers ? { identifier: o.identifiers } : {}),
    code: { coding: [{ system: systemOf(code), code }] },
    subject: { reference: `Patient/${o.patientId ?? world.patient.id}` },
    device: { reference: `Device/${o.deviceId ?? world.device.id}` },
    valueAttachment: attachmentOf(code, o),
  };
}

function attachmentOf(code: string, o: ObservationOptions): { contentType: string; data: string } {
  const options = {
    ...(o.at !== undefined ? { at: o.at } : {}),
    ...(o.form ? { form: o.form } : {}),
    ...(o.spanMinutes !== undefined ? { spanMinutes: o.spanMinutes } : {}),
    ...(o.uuid ? { uuid: o.uuid } : {}),
    ...(o.members ? { members: o.members } : {}),
  };
  return sampleAttachment(code, options);
}

/** An Observation that is not mobile-health coded (a lab result): the native store hands it to the auxiliary store. */
export function labObservation(world: Pick<ObservationWorld, 'patient' | 'device'>): Record<string, unknown> {
  return { ...recoded(observation(world), { system: 'http://loinc.org', code: '2345-7' }), valueQuantity: { value: 5.4, unit: 'mmol/L' }, valueAttachment: undefined };
}

/** A batch Bundle creating each resource (an entry's URL names its resource's type). */
export function batchOf(resources: readonly unknown[]): Record<string, unknown> {
  const typeOf = (resource: unknown) => ((resource as { resourceType?: unknown })?.resourceType as string | undefined) ?? 'Observation';
  return { resourceType: 'Bundle', type: 'batch', entry: resources.map((resource) => ({ resource, request: { method: 'POST', url: typeOf(resource) } })) };
}

export function upload(token: string, resources: readonly unknown[], headers: Record<string, string> = {}): Promise<TestResponse> {
  return call('POST', '/FHIR/R5/', { token, body: batchOf(resources), headers });
}

/** Ids of the created (or existing) entries of a batch response, in order. */
export function idsOf(res: TestResponse): string[] {
  return (res.json.entry as Array<{ resource?: { id: string } }>).map((e) => e.resource?.id ?? '');
}

export function statusesOf(res: TestResponse): string[] {
  return (res.json.entry as Array<{ response: { status: string } }>).map((e) => e.response.status);
}

export function search(token: string, query = '', headers: Record<string, string> = {}): Promise<TestResponse> {
  return call('GET', `/FHIR/R5/Observation${query ? `?${query}` : ''}`, { token, headers });
}

/** Follows `next` links from a first search, returning every page. */
export async function allPages(token: string, query: string): Promise<TestResponse[]> {
  const pages = [await search(token, query)];
  for (;;) {
    const next = (pages[pages.length - 1]!.json.link as Array<{ relation: string; url: string }>).find((l) => l.relation === 'next');
    if (!next) return pages;
    const url = new URL(next.url);
    pages.push(await call('GET', `${url.pathname}${url.search}`, { token }));
  }
}

/** Ids of a searchset's matches, in order. */
export function matchIds(res: TestResponse): string[] {
  return (res.json.entry as Array<{ resource: { id: string }; search?: { mode: string } }>).filter((e) => e.search?.mode !== 'outcome').map((e) => e.resource.id);
}

/** Readings stored for a patient (each with its `header.uuid`), read straight from the table's blocks, or the twin's readings of the patient. */
export async function storedRows(patientId: number): Promise<Array<Record<string, unknown> & { uuid: string }>> {
  const twins = twinsInUse();
  if (twins) return twinRecords(twins.observations).filter((r) => r.kind === 'readings' && r.patientId === patientId) as Array<Record<string, unknown> & { uuid: string }>;
  const { readingsOfBlock } = await import('../../shared/observations/store/block-items');
  return (await partitionItems(patientId, 'B#')).flatMap((item) => readingsOfBlock(item, patientId)) as unknown as Array<Record<string, unknown> & { uuid: string }>;
}

/** The uuid claims of a patient's readings, read straight from the table (layout 3: `U#<uuid>`). */
export async function storedClaims(patientId: number): Promise<Array<Record<string, unknown>>> {
  return partitionItems(patientId, 'U#');
}

/** The items of a patient's partition whose sort key starts with `prefix`, straight from the table. */
async function partitionItems(patientId: number, prefix: string): Promise<Array<Record<string, unknown>>> {
  const { QueryCommand } = await import('@aws-sdk/lib-dynamodb');
  const { dynamo } = await import('../../shared/store/clients');
  const { config } = await import('../../shared/config');
  const items: Array<Record<string, unknown>> = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await dynamo().send(
      new QueryCommand({
        TableName: config().observationsTable,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': `P#${patientId}`, ':prefix': prefix },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** The resource with its `code.coding` replaced. */
export function recoded(resource: Record<string, unknown>, ...coding: Array<{ system?: string; code?: string }>): Record<string, unknown> {
  return { ...resource, code: { coding } };
}
