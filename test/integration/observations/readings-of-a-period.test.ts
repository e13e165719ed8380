/**
 * THE readings of a period (shared/observations/period.ts, docs/api.md#the-readings-of-a-period),
 * on one set of stored readings: instants at both edges, readings across midnight at both edges,
 * one that began before the period and lasts into it, one undated. Every path that asks for a
 * period's readings finds the same ones: the typed functions (find, count, `$stats`' statistics,
 * `$lastn`'s newest), the FHIR search that asks for them by their start (`date=sa...&date=lt...`,
 * its `_summary=count` too), `$stats` over HTTP, `$lastn` with the same dates, a bulk export
 * filtered by them, and the assistants' tools given `from` and `to`. A FHIR search's own `ge` and
 * `le` keep R5's range semantics, which is where the tools' periods used to disagree with `$stats`.
 */
import { Client, InMemoryTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { callerFromToken } from '../../../shared/auth/authenticate';
import type { Caller } from '../../../shared/auth/caller';
import { createMcpServer } from '../../../shared/mcp/server';
import { samplePayload } from '../../../shared/omh/samples';
import { periodOfDates } from '../../../shared/observations/period';
import { countReadingsByCode, findReadings, latestReadings } from '../../../shared/observations/series';
import { readingStatistics } from '../../../shared/observations/stats/operation';
import { downloadAll, finished, kickOff, runExportWork } from '../../support/export';
import { call } from '../../support/invoke';
import { idsOf, matchIds, observation, observationWorld, search, upload, type ObservationWorld } from '../../support/observations';
import { stats, statisticsOf } from '../../support/stats';

const HR = 'omh:heart-rate:2.0';
const RR = 'omh:rr-interval:1.0';
const HOUR = 3_600_000;
const JAN_5 = Date.UTC(2026, 0, 5);
const JAN_8 = Date.UTC(2026, 0, 8);
/** The period asked: 5 to 7 January 2026, each end covering its whole day. */
const FROM = '2026-01-05';
const TO = '2026-01-07';
/** The same readings asked of the FHIR search by their start: after the instant before `from`, before the instant after `to`. */
const BY_START = 'date=sa2026-01-04T23:59:59.999Z&date=lt2026-01-08';

let world: ObservationWorld;
let caller: Caller;
const ids: Record<string, string> = {};

/** The readings, by name: what each is, and whether the period holds it. */
const READINGS = {
  before: { at: JAN_5 - 12 * HOUR, minutes: 0, heartRate: 60, inPeriod: false },
  intoFrom: { at: JAN_5 - HOUR, minutes: 32 * 60, heartRate: 61, inPeriod: false },
  atFrom: { at: JAN_5, minutes: 0, heartRate: 62, inPeriod: true },
  acrossMidnight: { at: JAN_5 + 23 * HOUR, minutes: 8 * 60, heartRate: 63, inPeriod: true },
  inside: { at: JAN_5 + 36 * HOUR, minutes: 0, heartRate: 64, inPeriod: true },
  pastTo: { at: JAN_8 - HOUR, minutes: 8 * 60, heartRate: 65, inPeriod: true },
  lastMillisecond: { at: JAN_8 - 1, minutes: 0, heartRate: 66, inPeriod: true },
  atTo: { at: JAN_8, minutes: 0, heartRate: 67, inPeriod: false },
} as const;
type Name = keyof typeof READINGS;
const NAMES = Object.keys(READINGS) as Name[];
const IN_PERIOD = NAMES.filter((n) => READINGS[n].inPeriod);
const idsOfNames = (names: readonly string[]) => names.map((n) => ids[n]!);
const sorted = (list: readonly string[]) => [...list].sort((a, b) => Number(a) - Number(b));

beforeAll(async () => {
  world = await observationWorld();
  caller = await callerFromToken(world.practitioner.token);
  const dated = NAMES.map((name) => {
    const r = READINGS[name];
    const form = r.minutes === 0 ? 'date_time' : 'start_end';
    return observation(world, { code: HR, at: r.at, form, spanMinutes: r.minutes, members: { heart_rate: { value: r.heartRate, unit: 'beats/min' } } });
  });
  const rr = samplePayload(RR) as { body: Record<string, unknown> };
  delete rr.body.effective_time_frame;
  const undated = { ...observation(world, { code: RR }), valueAttachment: { contentType: 'application/json', data: Buffer.from(JSON.stringify(rr)).toString('base64') } };
  const res = await upload(world.patient.token, [...dated, undated]);
  expect(res.json.entry.map((e: { response: { status: string } }) => e.response.status)).toEqual(Array(NAMES.length + 1).fill('201 Created'));
  idsOf(res).forEach((id, i) => (ids[NAMES[i] ?? 'undated'] = id));
});

describe('the readings of a period, on every path', () => {
  const period = () => periodOfDates(FROM, TO);
  const subject = () => ({ patientId: world.patient.id });

  it('the typed functions: the rows, their count, their statistics (per day summing to the period) and the newest', async () => {
    const found = await findReadings(caller, { subject: subject(), period: period(), order: 'oldest', limit: 100, total: true });
    expect(found.rows.map((r) => String(r.id))).toEqual(idsOfNames(IN_PERIOD));
    expect(found.total).toBe(IN_PERIOD.length);
    expect(await countReadingsByCode(caller, { subject: subject(), codes: [HR, RR], period: period() })).toEqual([IN_PERIOD.length, 0]);

    const statistics = { subject: `Patient/${world.patient.id}`, codings: [{ code: HR }], period: { from: JAN_5, to: JAN_8 }, statistics: ['count' as const] };
    const whole = await readingStatistics(caller, statistics);
    expect(whole.codes[0]!.spans.map((s) => s.groups[0]!.values)).toEqual([[{ statistic: 'count', value: IN_PERIOD.length }]]);
    const daily = await readingStatistics(caller, { ...statistics, interval: 'day' });
    // 5 January: the instant at its start and the night from 23:00 (counted on the day it began); 6: one; 7: the night from 23:00 and the last millisecond.
    expect(daily.codes[0]!.spans.map((s) => [new Date(s.from).toISOString().slice(0, 10), s.groups[0]!.values[0]!.value])).toEqual([
      ['2026-01-05', 2],
      ['2026-01-06', 1],
      ['2026-01-07', 2],
    ]);

    const latest = await latestReadings(caller, { patientId: world.patient.id, codes: [HR], max: 1, period: period() });
    expect(latest.map((r) => String(r.id))).toEqual([ids.lastMillisecond]);
  });

  it('the whole history holds every reading, the undated one included (last), and no bounded period holds it', async () => {
    const all = await findReadings(caller, { subject: subject(), order: 'oldest', limit: 100 });
    expect(all.rows.map((r) => String(r.id))).toEqual([...idsOfNames(NAMES), ids.undated]);
    expect(await countReadingsByCode(caller, { subject: subject(), codes: [HR, RR] })).toEqual([NAMES.length, 1]);
    expect(await countReadingsByCode(caller, { subject: subject(), codes: [HR, RR], period: periodOfDates(undefined, '9999') })).toEqual([NAMES.length, 0]);
  });

  it('the FHIR search by start, its count, $stats, $lastn and a bulk export find the same readings', async () => {
    const token = world.practitioner.token;
    const query = `patient=${world.patient.id}&${BY_START}`;
    expect(sorted(matchIds(await search(token, `${query}&_count=100`)))).toEqual(sorted(idsOfNames(IN_PERIOD)));
    expect((await search(token, `${query}&_summary=count`)).json.total).toBe(IN_PERIOD.length);

    const counted = statisticsOf(await stats(token, `subject=Patient/${world.patient.id}&code=${HR}&period=${FROM}/${TO}&statistic=count`));
    expect(counted.map((span) => span.values.get('8867-4 count'))).toEqual([IN_PERIOD.length]);

    const lastn = await call('GET', `/FHIR/R5/Observation/$lastn?${query}&code=${HR}`, { token });
    expect(matchIds(lastn)).toEqual([ids.lastMillisecond]);

    const filter = encodeURIComponent(`Observation?${BY_START}`);
    const kicked = await kickOff(token, `/FHIR/R5/Patient/$export?_type=Observation&_typeFilter=${filter}`);
    expect(kicked.status, kicked.text).toBe(202);
    await runExportWork();
    const exported = await downloadAll(token, await finished(token, kicked), 'Observation');
    expect(sorted(exported.map((o) => String(o.id)))).toEqual(sorted(idsOfNames(IN_PERIOD)));
  });

  it("the assistants' tools: from and to hold the period's readings, as $stats' period does", async () => {
    const server = createMcpServer(caller);
    const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(clientSide);
    const tool = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: { patientId: world.patient.id, from: FROM, to: TO, ...args } })) as CallToolResult;
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      return result.structuredContent as Record<string, any>;
    };
    expect((await tool('count_readings', {})).byType).toEqual([{ type: HR, display: expect.any(String), count: IN_PERIOD.length }]);
    const page = await tool('get_readings', { pageSize: 100 });
    expect(page.readings.map((r: { id: string }) => r.id)).toEqual([...idsOfNames(IN_PERIOD)].reverse());
    const statistics = await tool('reading_statistics', { readingType: HR, statistics: ['count', 'average'] });
    expect(statistics.intervals[0].values).toEqual([
      { member: 'heart_rate', statistic: 'count', value: IN_PERIOD.length },
      { member: 'heart_rate', statistic: 'average', value: 64, unit: 'beats/min' },
    ]);
    const summary = await tool('summarize_patient_readings', {});
    expect(summary.types).toEqual([
      expect.objectContaining({ type: HR, count: IN_PERIOD.length, first: new Date(JAN_5).toISOString(), last: new Date(JAN_8 - 1).toISOString(), averages: [{ member: 'heart_rate', value: 64, unit: 'beats/min' }] }),
    ]);
    const high = await tool('search_readings_by_value', { readingType: HR, comparator: 'ge', value: 61 });
    expect(high.total).toBe(IN_PERIOD.length);
  });

  it("a FHIR search's ge and le keep R5's range semantics: a reading begun before the first day that outlasts it, and not one begun on the last day that outlasts it", async () => {
    const res = await search(world.practitioner.token, `patient=${world.patient.id}&date=ge${FROM}&date=le${TO}&_count=100`);
    const found = new Set(matchIds(res));
    expect(found.has(ids.intoFrom!)).toBe(true);
    expect(found.has(ids.pastTo!)).toBe(false);
  });
});
