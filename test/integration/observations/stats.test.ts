/**
 * `Observation/$stats` through the FHIR handler (on the in-memory twins): known readings give known
 * statistics, whole days from the day summaries and the period's partial days from the rows; a
 * re-post counts once; a property test holds every statistic to a plain computation over the
 * payloads sent (random days, kilograms and pounds mixed, re-posts); the interval extension; the
 * purge and the rebuild; who may ask.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { deletePatientObservations } from '../../../shared/observations/delete';
import { rebuildSummaries } from '../../../shared/observations/stats/keep';
import { summaryStore } from '../../../shared/observations/store/summary-current';
import { code, makeOrganization, makePatient, makePractitioner, makeStudy } from '../../support/directory';
import { observation, observationWorld, statusesOf, upload, type ObservationWorld } from '../../support/observations';
import { stats, STATISTICS_SYSTEM, statisticsObservations, statisticsOf, statsPost, valued, type StatisticsObservation } from '../../support/stats';

const HOUR = 3_600_000;
const D1 = Date.UTC(2025, 5, 1);
const D2 = Date.UTC(2025, 5, 2);
const ALL = 'count,minimum,maximum,average,sum,variance,std-dev,median,20-percent,80-percent,4-lower,4-upper';
const HR = '8867-4';
const WEIGHT = '29463-7';
const SYSTOLIC = '8480-6';
const DIASTOLIC = '8462-4';
const HR_CODE = 'omh:heart-rate:2.0';
const BP_CODE = 'omh:blood-pressure:4.0';
const ACTIVITY_CODE = 'ieee:physical-activity:1.0';
const UCUM = 'http://unitsofmeasure.org';

let world: ObservationWorld;
beforeAll(async () => {
  world = await observationWorld();
});

/** A fresh patient of the world's organization, with a login and consent to every code. */
async function freshPatient(): Promise<ObservationWorld> {
  const patient = (await makePatient({ organizations: [world.organization], login: true })) as ObservationWorld['patient'];
  await makeStudy({ organization: world.organization, codes: [HR_CODE, 'omh:body-weight:3.0', BP_CODE, ACTIVITY_CODE], patients: [patient], consent: true, dataSources: [world.device] });
  return { ...world, patient };
}

const query = (w: ObservationWorld, rest: string) => `subject=Patient/${w.patient.id}&${rest}`;

describe('known readings, known statistics', () => {
  it('a whole day from its summary and a partial day from its rows; every statistic as numpy computes it', async () => {
    const w = await freshPatient();
    const sent = [valued(w, { at: D1 + HOUR, value: 60 }), valued(w, { at: D1 + 2 * HOUR, value: 70 }), valued(w, { at: D1 + 3 * HOUR, value: 80 }), valued(w, { at: D2 + 6 * HOUR, value: 90 }), valued(w, { at: D2 + 13 * HOUR, value: 100 })];
    expect(statusesOf(await upload(w.patient.token, sent))).toEqual(Array(5).fill('201 Created'));
    // The re-post counts once.
    expect(statusesOf(await upload(w.patient.token, sent))).toEqual(Array(5).fill('200 OK'));
    const res = await stats(w.practitioner.token, query(w, `code=omh:heart-rate:2.0&period=2025-06-01/2025-06-02T12:00:00Z&statistic=${ALL}`));
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const [answer] = statisticsOf(res);
    expect(answer!.start).toBe('2025-06-01T00:00:00.000Z');
    // The end given to the second covers that second (FHIR dates are ranges).
    expect(answer!.end).toBe('2025-06-02T12:00:01.000Z');
    expect(Object.fromEntries([...answer!.values].map(([k, v]) => [k.split(' ')[1], v]))).toEqual({
      count: 4,
      minimum: 60,
      maximum: 90,
      average: 75,
      sum: 300,
      variance: 125,
      'std-dev': Number(Math.sqrt(125).toPrecision(12)),
      median: 75,
      '20-percent': 66,
      '80-percent': 84,
      '4-lower': 67.5,
      '4-upper': 82.5,
    });
    expect(answer!.units.get(`${HR} average`)).toBe('beats/min');
    // The same by POST with a Parameters body, by the LOINC coding.
    const posted = await statsPost(w.practitioner.token, [
      { name: 'subject', valueReference: { reference: `Patient/${w.patient.id}` } },
      { name: 'coding', valueCoding: { system: 'http://loinc.org', code: HR } },
      { name: 'period', valuePeriod: { start: '2025-06-01', end: '2025-06-02T12:00:00Z' } },
      ...['count', 'median'].map((s) => ({ name: 'statistic', valueCode: s })),
    ]);
    expect(posted.status, JSON.stringify(posted.json)).toBe(200);
    expect(statisticsOf(posted)[0]!.values).toEqual(new Map([[`${HR} count`, 4], [`${HR} median`, 75]]));
  });

  it('interval=day answers one statistics Observation per day with readings; interval=hour per hour', async () => {
    const w = await freshPatient();
    await upload(w.patient.token, [valued(w, { at: D1 + HOUR, value: 60 }), valued(w, { at: D1 + HOUR + 60_000, value: 62 }), valued(w, { at: D2 + 2 * HOUR, value: 90 })]);
    const daily = statisticsOf(await stats(w.patient.token, query(w, 'code=omh:heart-rate:2.0&period=2025-05-31/2025-06-03&statistic=count,average&interval=day')));
    expect(daily.map((d) => [d.start.slice(0, 10), d.values.get(`${HR} count`), d.values.get(`${HR} average`)])).toEqual([
      ['2025-06-01', 2, 61],
      ['2025-06-02', 1, 90],
    ]);
    const hourly = statisticsOf(await stats(w.patient.token, query(w, 'code=omh:heart-rate:2.0&period=2025-06-01/2025-06-02&statistic=maximum&interval=hour')));
    expect(hourly.map((h) => [h.start, h.values.get(`${HR} maximum`)])).toEqual([
      ['2025-06-01T01:00:00.000Z', 62],
      ['2025-06-02T02:00:00.000Z', 90],
    ]);
    const weekly = statisticsOf(await stats(w.patient.token, query(w, 'code=omh:heart-rate:2.0&period=2025-05-01/2025-06-30&statistic=count&interval=week')));
    // 2025-06-01 is a Sunday: its week began on Monday 26 May; the 2nd begins the next.
    expect(weekly.map((x) => [x.start.slice(0, 10), x.values.get(`${HR} count`)])).toEqual([
      ['2025-05-26', 2],
      ['2025-06-02', 1],
    ]);
  });

  it('refuses what it cannot answer with a 400 naming why', async () => {
    const w = world;
    const refusals = [
      'code=omh:heart-rate:2.0&duration=24&statistic=mode',
      'code=omh:heart-rate:2.0&duration=24&statistic=skew',
      'code=omh:heart-rate:2.0&duration=24',
      'code=omh:heart-rate:2.0&statistic=count',
      'code=omh:heart-rate:2.0&period=2025-01-01/2025-03-01&statistic=count&interval=hour',
      'code=omh:heart-rate:2.0&duration=-1&statistic=count',
      'code=nothing-here&duration=1&statistic=count',
      'code=omh:heart-rate:2.0&duration=1&statistic=count&interval=month',
      'code=omh:heart-rate:2.0&duration=1&statistic=count&include=true&limit=0',
      'code=omh:heart-rate:2.0&duration=1&statistic=count&_count=3',
    ];
    for (const q of refusals) expect((await stats(w.practitioner.token, query(w, q))).status, q).toBe(400);
    expect((await stats(w.practitioner.token, 'code=omh:heart-rate:2.0&duration=1&statistic=count')).status).toBe(400);
    // The limits are the domain's, checked of any request: the OperationOutcome names the parameter at fault.
    const hourly = await stats(w.practitioner.token, query(w, 'code=omh:heart-rate:2.0&period=2025-01-01/2025-03-01&statistic=count&interval=hour'));
    expect(hourly.json.issue[0]).toMatchObject({ code: 'invalid', expression: ['interval'], diagnostics: expect.stringContaining('at most 31 days') });
  });

  it('include=true returns the latest readings of the period as source, at most limit', async () => {
    const w = await freshPatient();
    await upload(w.patient.token, [60, 61, 62].map((value, i) => valued(w, { at: D1 + i * HOUR, value })));
    const res = await stats(w.patient.token, query(w, 'code=omh:heart-rate:2.0&period=2025-06-01/2025-06-01&statistic=count&include=true&limit=2'));
    const sources = (res.json.parameter as Array<{ name: string; resource: { effectiveDateTime: string } }>).filter((p) => p.name === 'source');
    expect(sources.map((s) => s.resource.effectiveDateTime.slice(11, 13))).toEqual(['02', '01']);
  });
});

describe("the answer in R5's shape: one Observation per code (per member of a panel), each statistic a component coded by it", () => {
  /** A blood pressure reading at `at`. */
  const pressure = (w: ObservationWorld, at: number, systolic: number, diastolic: number) =>
    observation(w, { code: BP_CODE, at, form: 'date_time', members: { systolic_blood_pressure: { value: systolic, unit: 'mmHg' }, diastolic_blood_pressure: { value: diastolic, unit: 'mmHg' } } });
  /** The Observation whose code has this coding. */
  const coded = (observations: StatisticsObservation[], system: string, code: string) => observations.filter((o) => o.code.coding.some((c) => c.system === system && c.code === code));
  /** The valueQuantity of the component whose code is the statistic, found as the OperationDefinition says: component.code holds the statistic. */
  const statistic = (o: StatisticsObservation, code: string) => o.component?.find((c) => c.code.coding.some((x) => x.system === STATISTICS_SYSTEM && x.code === code))?.valueQuantity;

  it('heart rate and blood pressure: count, minimum, maximum and average of the readings stored, per member, in the measured unit', async () => {
    const w = await freshPatient();
    const rates = [60, 72, 93];
    const pressures: Array<[number, number]> = [[120, 80], [141, 91], [130, 69]];
    const sent = [...rates.map((value, i) => valued(w, { at: D1 + i * HOUR, value })), ...pressures.map(([s, d], i) => pressure(w, D1 + i * HOUR, s, d))];
    expect(statusesOf(await upload(w.patient.token, sent))).toEqual(Array(6).fill('201 Created'));
    const res = await stats(w.practitioner.token, query(w, `code=${HR_CODE},${BP_CODE}&period=2025-06-01/2025-06-01&statistic=count,minimum,maximum,average`));
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const observations = statisticsObservations(res);
    expect(observations).toHaveLength(3);
    for (const o of observations) {
      expect(o).toMatchObject({ resourceType: 'Observation', status: 'final', subject: { reference: `Patient/${w.patient.id}` }, effectivePeriod: { start: '2025-06-01T00:00:00.000Z', end: '2025-06-02T00:00:00.000Z' } });
      expect(o.component?.map((c) => c.code.coding)).toEqual(['count', 'minimum', 'maximum', 'average'].map((code) => [{ system: STATISTICS_SYSTEM, code, display: code[0]!.toUpperCase() + code.slice(1) }]));
      expect(JSON.stringify(o)).not.toContain('extension');
    }

    // Heart rate: coded as its readings are (the omh code, then LOINC), so asked either way it is found.
    const [heart] = coded(observations, 'http://loinc.org', HR);
    expect(heart!.code.coding.map((c) => c.code)).toEqual([HR_CODE, HR]);
    expect(coded(observations, 'https://w3id.org/openmhealth', HR_CODE)).toEqual([heart]);
    // Shown to 12 significant digits (display.ts).
    const mean = (xs: readonly number[]) => Number((xs.reduce((a, b) => a + b, 0) / xs.length).toPrecision(12));
    const beats = (value: number) => ({ value, unit: 'beats/min', system: UCUM, code: '/min' });
    expect(statistic(heart!, 'count')).toEqual({ value: 3, system: UCUM, code: '1' });
    expect(statistic(heart!, 'minimum')).toEqual(beats(Math.min(...rates)));
    expect(statistic(heart!, 'maximum')).toEqual(beats(Math.max(...rates)));
    expect(statistic(heart!, 'average')).toEqual(beats(mean(rates)));

    // Blood pressure: one Observation per member, coded by the member alone.
    const mmHg = (value: number) => ({ value, unit: 'mmHg', system: UCUM, code: 'mm[Hg]' });
    for (const [loinc, values] of [[SYSTOLIC, pressures.map(([s]) => s)], [DIASTOLIC, pressures.map(([, d]) => d)]] as const) {
      const members = coded(observations, 'http://loinc.org', loinc);
      expect(members, loinc).toHaveLength(1);
      const [member] = members;
      expect(member!.code.coding).toHaveLength(1);
      expect(statistic(member!, 'count')).toEqual({ value: values.length, system: UCUM, code: '1' });
      expect(statistic(member!, 'minimum')).toEqual(mmHg(Math.min(...values)));
      expect(statistic(member!, 'maximum')).toEqual(mmHg(Math.max(...values)));
      expect(statistic(member!, 'average')).toEqual(mmHg(mean(values)));
    }

    // One member asked by its coding answers that member alone; per day, the same shape per interval.
    const systolic = statisticsObservations(await stats(w.practitioner.token, query(w, `coding=http://loinc.org|${SYSTOLIC}&period=2025-06-01/2025-06-01&statistic=maximum`)));
    expect(systolic.map((o) => [o.code.coding[0]!.code, statistic(o, 'maximum')?.value])).toEqual([[SYSTOLIC, 141]]);
    const daily = statisticsObservations(await stats(w.practitioner.token, query(w, `code=${BP_CODE}&period=2025-05-31/2025-06-02&statistic=count&interval=day`)));
    expect(daily.map((o) => [o.effectivePeriod.start.slice(0, 10), o.code.coding[0]!.code, statistic(o, 'count')?.value])).toEqual([
      ['2025-06-01', SYSTOLIC, 3],
      ['2025-06-01', DIASTOLIC, 3],
    ]);
  });

  it('nothing found: a count of 0 per member asked, in the same shape; a member in two unit groups answers one Observation per group', async () => {
    const w = await freshPatient();
    const none = statisticsObservations(await stats(w.practitioner.token, query(w, `code=${BP_CODE}&period=2025-06-01/2025-06-01&statistic=count,average`)));
    expect(none.map((o) => [o.code.coding.map((c) => c.code), o.component])).toEqual([
      [[SYSTOLIC], [{ code: { coding: [{ system: STATISTICS_SYSTEM, code: 'count', display: 'Count' }] }, valueQuantity: { value: 0, system: UCUM, code: '1' } }]],
      [[DIASTOLIC], [{ code: { coding: [{ system: STATISTICS_SYSTEM, code: 'count', display: 'Count' }] }, valueQuantity: { value: 0, system: UCUM, code: '1' } }]],
    ]);
    // base_movement_quantity takes any unit: steps (UCUM {steps}) and laps (none) are never mixed.
    const activity = (at: number, value: number, unit: string) => observation(w, { code: ACTIVITY_CODE, at, form: 'start_end', members: { base_movement_quantity: { value, unit } } });
    const up = await upload(w.patient.token, [activity(D1 + HOUR, 5400, 'steps'), activity(D1 + 2 * HOUR, 20, 'laps'), activity(D1 + 3 * HOUR, 12, 'laps')]);
    expect(statusesOf(up), JSON.stringify(up.json)).toEqual(Array(3).fill('201 Created'));
    const res = await stats(w.practitioner.token, query(w, `code=${ACTIVITY_CODE}&period=2025-06-01/2025-06-01&statistic=count,sum`));
    const movements = statisticsObservations(res).filter((o) => o.code.coding[0]!.code === 'base_movement_quantity');
    expect(movements.map((o) => [statistic(o, 'count')?.value, statistic(o, 'sum')])).toEqual([
      [1, { value: 5400, unit: '1', system: UCUM, code: '1' }],
      [2, { value: 32, unit: 'laps' }],
    ]);
  });
});

describe('who may ask', () => {
  it("a patient naming another patient hears nothing of them, as their search would; a practitioner outside the organization is refused", async () => {
    const w = await freshPatient();
    await upload(w.patient.token, [valued(w, { at: D1 + HOUR, value: 60 })]);
    const q = query(w, 'code=omh:heart-rate:2.0&period=2025-06-01/2025-06-01&statistic=count,maximum');
    expect(statisticsOf(await stats(w.patient.token, q))[0]!.values.get(`${HR} count`)).toBe(1);
    const other = await freshPatient();
    const asOther = await stats(other.patient.token, q);
    expect(asOther.status).toBe(200);
    expect(statisticsOf(asOther)[0]!.values).toEqual(new Map([[`${HR} count`, 0]]));
    const outsider = await makePractitioner({ organizations: [await makeOrganization()] });
    const refused = await stats(outsider.token, q);
    expect(refused.status).toBe(403);
    expect(JSON.stringify(refused.json)).not.toContain('60');
  });
});

describe('the summaries follow the rows', () => {
  it("a purged patient's statistics are gone; a reading stored again starts fresh", async () => {
    const w = await freshPatient();
    await upload(w.patient.token, [valued(w, { at: D1 + HOUR, value: 60 }), valued(w, { at: D1 + 2 * HOUR, value: 64 })]);
    const heartRate = (await code('omh:heart-rate:2.0')).id;
    expect(await summaryStore().days(w.patient.id, heartRate, { from: '2025-06-01', to: '2025-06-01' }, false)).toHaveLength(1);
    await deletePatientObservations(w.patient.id);
    expect(await summaryStore().days(w.patient.id, heartRate, { from: '2025-06-01', to: '2025-06-01' }, false)).toEqual([]);
    const q = query(w, 'code=omh:heart-rate:2.0&period=2025-06-01/2025-06-01&statistic=count,maximum');
    expect(statisticsOf(await stats(w.practitioner.token, q))[0]!.values).toEqual(new Map([[`${HR} count`, 0]]));
    await upload(w.patient.token, [valued(w, { at: D1 + 3 * HOUR, value: 50 })]);
    expect(statisticsOf(await stats(w.practitioner.token, q))[0]!.values).toEqual(new Map([[`${HR} count`, 1], [`${HR} maximum`, 50]]));
  });

  it('rebuildSummaries puts a damaged or missing summary right from the rows', async () => {
    const w = await freshPatient();
    await upload(w.patient.token, [valued(w, { at: D1 + HOUR, value: 60 }), valued(w, { at: D1 + 2 * HOUR, value: 64 }), valued(w, { at: D2 + HOUR, value: 70 })]);
    const q = query(w, `code=omh:heart-rate:2.0&period=2025-06-01/2025-06-02&statistic=${ALL}`);
    const right = statisticsOf(await stats(w.practitioner.token, q))[0]!.values;
    const heartRate = (await code('omh:heart-rate:2.0')).id;
    const [day1] = await summaryStore().days(w.patient.id, heartRate, { from: '2025-06-01', to: '2025-06-01' }, true);
    // The first day damaged (a wrong maximum and histogram), the second missing.
    await summaryStore().deletePatient(w.patient.id);
    await summaryStore().keep({ ...day1!, groups: day1!.groups.map((g) => ({ ...g, max: 1000, histogram: new Map([[1, 2]]) })) }, 'repair');
    expect(statisticsOf(await stats(w.practitioner.token, q))[0]!.values).not.toEqual(right);
    expect(await rebuildSummaries(w.patient.id)).toEqual({ days: 2, repaired: 2 });
    expect(statisticsOf(await stats(w.practitioner.token, q))[0]!.values).toEqual(right);
    expect(await rebuildSummaries(w.patient.id)).toEqual({ days: 2, repaired: 0 });
  });
});

describe('every statistic against a plain computation over the payloads sent', () => {
  /** numpy's default quantile: linear interpolation between the closest ranks. */
  function quantile(sorted: number[], p: number): number {
    const h = (sorted.length - 1) * p;
    const lo = Math.floor(h);
    return lo + 1 < sorted.length ? sorted[lo]! + (h - lo) * (sorted[lo + 1]! - sorted[lo]!) : sorted[lo]!;
  }
  const close = (a: number | undefined, b: number) => a !== undefined && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));

  it('random days and hours, kilograms and pounds mixed, re-posts included', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ minute: fc.integer({ min: 0, max: 10 * 24 * 60 - 1 }), tenths: fc.integer({ min: 200, max: 2000 }), pounds: fc.boolean(), repost: fc.boolean() }), { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 10 * 24 - 1 }),
        fc.integer({ min: 1, max: 10 * 24 }),
        async (readings, fromHour, hours) => {
          const w = await freshPatient();
          const at = (minute: number) => D1 + minute * 60_000;
          const sent = readings.map((r) => valued(w, { code: 'omh:body-weight:3.0', at: at(r.minute), value: r.tenths / 10, unit: r.pounds ? 'lb' : 'kg' }));
          await upload(w.patient.token, sent);
          const again = sent.filter((_, i) => readings[i]!.repost);
          if (again.length > 0) await upload(w.patient.token, again);
          const from = D1 + fromHour * HOUR;
          const to = Math.min(from + hours * HOUR, D1 + 10 * 24 * HOUR);
          const period = `${new Date(from).toISOString()}/${new Date(to - 1).toISOString()}`;
          const res = await stats(w.practitioner.token, query(w, `code=omh:body-weight:3.0&period=${period}&statistic=${ALL}`));
          expect(res.status, JSON.stringify(res.json)).toBe(200);
          // The plain computation: the readings whose time lies in the period, in kilograms.
          const kg = readings.filter((r) => at(r.minute) >= from && at(r.minute) < to).map((r) => (r.pounds ? (r.tenths / 10) * 0.45359237 : r.tenths / 10)).sort((a, b) => a - b);
          const got = statisticsOf(res)[0]!.values;
          if (kg.length === 0) return void expect(got).toEqual(new Map([[`${WEIGHT} count`, 0]]));
          const mean = kg.reduce((a, b) => a + b, 0) / kg.length;
          const variance = kg.reduce((a, b) => a + (b - mean) ** 2, 0) / kg.length;
          const want: Record<string, number> = {
            count: kg.length,
            minimum: kg[0]!,
            maximum: kg[kg.length - 1]!,
            average: mean,
            sum: mean * kg.length,
            variance,
            'std-dev': Math.sqrt(variance),
            median: quantile(kg, 0.5),
            '20-percent': quantile(kg, 0.2),
            '80-percent': quantile(kg, 0.8),
            '4-lower': quantile(kg, 0.25),
            '4-upper': quantile(kg, 0.75),
          };
          for (const [statistic, value] of Object.entries(want)) {
            const shown = got.get(`${WEIGHT} ${statistic}`);
            // A spread near zero is the difference of close values: compared to the values' scale.
            const ok = statistic === 'variance' || statistic === 'std-dev' ? Math.abs((shown ?? NaN) - value) <= 1e-6 * Math.max(1, mean) : close(shown, value);
            expect(ok, `${statistic}: ${shown} for ${value}`).toBe(true);
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
