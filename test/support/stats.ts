/**
 * `Observation/$stats` for tests: readings with chosen values, the call, and its statistics read
 * back as R5 defines them (each component's `code` a statistic) as `{member, statistic} -> value`.
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

/** R5's statistics code system: a statistics component's `code` is a coding of it. */
export const STATISTICS_SYSTEM = 'http://hl7.org/fhir/observation-statistics';

interface Coding {
  system?: string;
  code: string;
  display?: string;
}

export interface StatisticsObservation {
  effectivePeriod: { start: string; end: string };
  code: { coding: Coding[]; text?: string };
  component?: Array<{ code: { coding: Coding[] }; valueQuantity: { value: number; unit?: string; system?: string; code?: string } }>;
}

/** The `statistics` Observations of an answer, in order. */
export function statisticsObservations(res: TestResponse): StatisticsObservation[] {
  return (res.json.parameter as Array<{ name: string; resource: StatisticsObservation }>).filter((p) => p.name === 'statistics').map((p) => p.resource);
}

/** The statistic a component states, read as R5 says: the coding of its `code` in the statistics code system (none: the test fails). */
export function statisticCode(component: { code: { coding: Coding[] } }): string {
  const coding = component.code.coding.find((c) => c.system === STATISTICS_SYSTEM);
  if (!coding) throw new Error(`A statistics component without a statistic code: ${JSON.stringify(component.code)}`);
  return coding.code;
}

/** The member an Observation states statistics of: its code's last coding (the member's; the omh code's comes first). */
const memberCodeOf = (o: StatisticsObservation) => o.code.coding.at(-1)!.code;

/**
 * The statistics Observations of each span, in order (one per member and unit group), as
 * `'<member code> <statistic>' -> value` with its period.
 */
export function statisticsOf(res: TestResponse): Array<{ start: string; end: string; values: Map<string, number>; units: Map<string, string | undefined> }> {
  const spans: Array<{ start: string; end: string; values: Map<string, number>; units: Map<string, string | undefined> }> = [];
  for (const o of statisticsObservations(res)) {
    const { start, end } = o.effectivePeriod;
    let span = spans.at(-1);
    if (!span || span.start !== start || span.end !== end) spans.push((span = { start, end, values: new Map(), units: new Map() }));
    for (const c of o.component ?? []) {
      const key = `${memberCodeOf(o)} ${statisticCode(c)}`;
      span.values.set(key, c.valueQuantity.value);
      span.units.set(key, c.valueQuantity.unit);
    }
  }
  return spans;
}
