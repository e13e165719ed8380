/**
 * `Observation/$stats` for tests: readings with chosen values, the call, and its components read
 * back as `{member, statistic} -> value`.
 *
 *   await upload(world.patient.token, [valued(world, { at, value: 72 })]);
 *   const res = await stats(world.practitioner.token, `subject=Patient/${id}&code=omh:heart-rate:2.0&period=2025-06-01/2025-06-02&statistic=median`);
 *   statisticsOf(res)[0]  // { 'heart_rate median': 72, ... }
 */
import { randomUUID } from 'node:crypto';
import { encodePayload, samplePayload } from '../../shared/omh/samples';
import { call, type TestResponse } from './invoke';
import { observation, type ObservationWorld } from './observations';

/** The body member each code's value goes to in `valued`. */
const MEMBER: ReadonlyMap<string, string> = new Map([
  ['omh:heart-rate:2.0', 'heart_rate'],
  ['omh:body-weight:3.0', 'body_weight'],
]);
const UNIT: ReadonlyMap<string, string> = new Map([
  ['omh:heart-rate:2.0', 'beats/min'],
  ['omh:body-weight:3.0', 'kg'],
]);

/** A reading of `code` (heart rate by default) at `at` whose value is `value` in `unit` (the code's usual unit by default). */
export function valued(world: Pick<ObservationWorld, 'patient' | 'device'>, o: { at: number; value: number; unit?: string; code?: string; uuid?: string }): Record<string, unknown> {
  const code = o.code ?? 'omh:heart-rate:2.0';
  const payload = samplePayload(code, { at: o.at, form: 'date_time', uuid: o.uuid ?? randomUUID() });
  (payload.body as Record<string, unknown>)[MEMBER.get(code)!] = { value: o.value, unit: o.unit ?? UNIT.get(code)! };
  const resource = observation(world, { code, at: o.at, form: 'date_time' });
  return { ...resource, valueAttachment: { contentType: 'application/json', data: encodePayload(payload) } };
}

export function stats(token: string, query: string): Promise<TestResponse> {
  return call('GET', `/FHIR/R5/Observation/$stats?${query}`, { token });
}

export function statsPost(token: string, parameter: unknown[]): Promise<TestResponse> {
  return call('POST', '/FHIR/R5/Observation/$stats', { token, body: { resourceType: 'Parameters', parameter } });
}

interface Component {
  extension: Array<{ valueCoding: { code: string } }>;
  code: { coding: Array<{ code: string; display: string }> };
  valueQuantity: { value: number; unit: string; code?: string };
}

/** Each statistics Observation's components as `'<member code> <statistic>' -> value`, with its period. */
export function statisticsOf(res: TestResponse): Array<{ start: string; end: string; values: Map<string, number>; units: Map<string, string> }> {
  const observations = (res.json.parameter as Array<{ name: string; resource: { effectivePeriod: { start: string; end: string }; component?: Component[] } }>).filter((p) => p.name === 'statistics');
  return observations.map(({ resource }) => ({
    start: resource.effectivePeriod.start,
    end: resource.effectivePeriod.end,
    values: new Map((resource.component ?? []).map((c) => [`${c.code.coding[0]!.code} ${c.extension[0]!.valueCoding.code}`, c.valueQuantity.value])),
    units: new Map((resource.component ?? []).map((c) => [`${c.code.coding[0]!.code} ${c.extension[0]!.valueCoding.code}`, c.valueQuantity.unit])),
  }));
}
