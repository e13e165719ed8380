/**
 * Search by the values inside the readings (docs/api.md#search-by-value): every prefix at the
 * boundaries of a number's implicit range, the unit forms and conversion between units of one
 * dimension, blood-pressure components, the composites, the standard code, and the combination
 * with the other parameters, counting and paging. The readings are made with known payload values.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { allPages, matchIds, observation, observationWorld, search, upload, type ObservationWorld } from '../../support/observations';

let world: ObservationWorld;
const DAY = Date.UTC(2026, 10, 2);
/** Reading ids by what they hold. */
const ids = new Map<string, string>();

const heartRate = (value: number, minute: number) =>
  observation(world, { code: 'omh:heart-rate:2.0', at: DAY + minute * 60_000, form: 'date_time', members: { heart_rate: { value, unit: 'beats/min' } } });
const weight = (value: number, unit: string, minute: number) =>
  observation(world, { code: 'omh:body-weight:3.0', at: DAY + minute * 60_000, form: 'date_time', members: { body_weight: { value, unit } } });
const pressure = (systolic: number, diastolic: number, minute: number) =>
  observation(world, {
    code: 'omh:blood-pressure:4.0',
    at: DAY + minute * 60_000,
    form: 'date_time',
    members: { systolic_blood_pressure: { value: systolic, unit: 'mmHg' }, diastolic_blood_pressure: { value: diastolic, unit: 'mmHg' } },
  });
const temperature = (value: number, unit: string, minute: number) =>
  observation(world, { code: 'omh:body-temperature:4.0', at: DAY + minute * 60_000, form: 'date_time', members: { body_temperature: { value, unit } } });

const READINGS: Array<[name: string, make: () => Record<string, unknown>]> = [
  ['hr 119.4', () => heartRate(119.4, 0)],
  ['hr 119.5', () => heartRate(119.5, 1)],
  ['hr 120', () => heartRate(120, 2)],
  ['hr 120.5', () => heartRate(120.5, 3)],
  ['hr 134', () => heartRate(134, 4)],
  ['w 70 kg', () => weight(70, 'kg', 10)],
  ['w 154.3 lb', () => weight(154.3, 'lb', 11)],
  ['w 80 kg', () => weight(80, 'kg', 12)],
  ['bp 152/95', () => pressure(152, 95, 20)],
  ['bp 118/76', () => pressure(118, 76, 21)],
  ['t 37 C', () => temperature(37, 'C', 30)],
  ['t 99.5 F', () => temperature(99.5, 'F', 31)],
];

/** The names of the readings a search finds (in any order). */
async function found(query: string): Promise<string[]> {
  const res = await search(world.patient.token, query);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  const names = new Map([...ids].map(([name, id]) => [id, name]));
  return matchIds(res).map((id) => names.get(id) ?? `unknown ${id}`).sort();
}

const HR = 'code=omh:heart-rate:2.0';

beforeAll(async () => {
  world = await observationWorld();
  const res = await upload(world.patient.token, READINGS.map(([, make]) => make()));
  expect(res.status).toBe(200);
  res.json.entry.forEach((e: { response: { status: string }; resource: { id: string } }, i: number) => {
    expect(e.response.status).toBe('201 Created');
    ids.set(READINGS[i]![0], e.resource.id);
  });
});

describe('value-quantity: every prefix at the boundaries of 120', () => {
  it.each([
    ['120', ['hr 119.5', 'hr 120']], // [119.5, 120.5)
    ['eq120', ['hr 119.5', 'hr 120']],
    ['ne120', ['hr 119.4', 'hr 120.5', 'hr 134']],
    ['gt120', ['hr 120.5', 'hr 134']],
    ['ge120', ['hr 120', 'hr 120.5', 'hr 134']],
    ['lt120', ['hr 119.4', 'hr 119.5']],
    ['le120', ['hr 119.4', 'hr 119.5', 'hr 120']],
    ['sa120', ['hr 120.5', 'hr 134']],
    ['eb120', ['hr 119.4', 'hr 119.5']],
    ['ap120', ['hr 119.4', 'hr 119.5', 'hr 120', 'hr 120.5']], // within 10%: [108, 132]
    ['120.0', ['hr 120']], // [119.95, 120.05)
    ['gt119.5', ['hr 120', 'hr 120.5', 'hr 134']],
    ['gt120,lt119.5', ['hr 119.4', 'hr 120.5', 'hr 134']], // comma = OR
  ])('value-quantity=%s', async (value, expected) => {
    expect(await found(`${HR}&value-quantity=${value}`)).toEqual(expected);
  });

  it('repetition is AND', async () => {
    expect(await found(`${HR}&value-quantity=gt119.4&value-quantity=lt120.5`)).toEqual(['hr 119.5', 'hr 120']);
  });
});

describe('units', () => {
  it('a number without a unit compares with the value as uploaded, whatever its unit', async () => {
    expect(await found('code=omh:body-weight:3.0&value-quantity=gt100')).toEqual(['w 154.3 lb']);
  });

  it('converts within a dimension: 70 kg finds 154.3 lb (69.99 kg), and 154.3 lb finds 70 kg', async () => {
    expect(await found('value-quantity=70|http://unitsofmeasure.org|kg')).toEqual(['w 154.3 lb', 'w 70 kg']);
    expect(await found('value-quantity=ge75||kg')).toEqual(['w 80 kg']);
    expect(await found('value-quantity=154|http://unitsofmeasure.org|[lb_av]')).toEqual(['w 154.3 lb', 'w 70 kg']);
    // The Open mHealth unit as written, without a system.
    expect(await found('value-quantity=lt160||lb')).toEqual(['w 154.3 lb', 'w 70 kg']);
  });

  it('a UCUM unit outside the generated table is converted by the UCUM library (stone)', async () => {
    expect(await found('value-quantity=11|http://unitsofmeasure.org|[stone_av]')).toEqual(['w 154.3 lb', 'w 70 kg']);
  });

  it('temperatures across Celsius and Fahrenheit (an offset, not only a factor)', async () => {
    expect(await found('value-quantity=98.6|http://unitsofmeasure.org|[degF]')).toEqual(['t 37 C']);
    expect(await found('value-quantity=gt37||Cel')).toEqual(['t 99.5 F']);
  });

  it('another dimension, an unknown unit or another system finds nothing', async () => {
    expect(await found('value-quantity=70|http://unitsofmeasure.org|m')).toEqual([]);
    expect(await found('value-quantity=70||furlongs-per-fortnight')).toEqual([]);
    expect(await found('value-quantity=70|http://example.org/units|kg')).toEqual([]);
  });
});

describe('components, composites and codes', () => {
  it('blood pressure: a component value, by any component or by its code', async () => {
    // A weight's value is its component too (coded by its member: obs-7), so it counts among components.
    expect(await found('component-value-quantity=gt140')).toEqual(['bp 152/95', 'w 154.3 lb']);
    expect(await found('component-value-quantity=gt140||mm[Hg]')).toEqual(['bp 152/95']);
    expect(await found('component-code-value-quantity=http://loinc.org|8480-6$ge140')).toEqual(['bp 152/95']);
    expect(await found('component-code-value-quantity=http://loinc.org|8462-4$lt80')).toEqual(['bp 118/76']);
    // The systolic of one reading and the diastolic of the other do not make a match of either.
    expect(await found('component-code-value-quantity=http://loinc.org|8480-6$lt120&component-code-value-quantity=http://loinc.org|8462-4$gt90')).toEqual([]);
    expect(await found('component-code=http://loinc.org|8480-6')).toEqual(['bp 118/76', 'bp 152/95']);
  });

  it('a blood pressure has no principal value; combo takes the reading and its components', async () => {
    expect(await found('code=omh:blood-pressure:4.0&value-quantity=gt0')).toEqual([]);
    expect(await found('combo-value-quantity=gt150||mm[Hg]')).toEqual(['bp 152/95']);
    expect(await found('combo-code-value-quantity=http://loinc.org|8867-4$gt130')).toEqual(['hr 134']);
  });

  it('code-value-quantity: the reading code and its principal value', async () => {
    expect(await found('code-value-quantity=http://loinc.org|8867-4$gt120')).toEqual(['hr 120.5', 'hr 134']);
    expect(await found('code-value-quantity=omh:heart-rate:2.0$lt119.5')).toEqual(['hr 119.4']);
  });

  it('the standard code finds the readings: code=http://loinc.org|8867-4', async () => {
    expect(await found('code=http://loinc.org|8867-4')).toEqual(['hr 119.4', 'hr 119.5', 'hr 120', 'hr 120.5', 'hr 134']);
    expect(await found('code=http://loinc.org|85354-9')).toEqual(['bp 118/76', 'bp 152/95']);
  });
});

describe('with the rest of the search', () => {
  it('counts, with _summary=count and _total=accurate', async () => {
    const count = await search(world.patient.token, `${HR}&value-quantity=ge120&_summary=count`);
    expect(count.json).toMatchObject({ resourceType: 'Bundle', total: 3 });
    const total = await search(world.patient.token, `${HR}&value-quantity=ge120&_total=accurate&_count=1`);
    expect(total.json.total).toBe(3);
  });

  it('pages through the matches, sorted, each once', async () => {
    const pages = await allPages(world.patient.token, `value-quantity=gt100&_sort=-date&_count=2`);
    const all = pages.flatMap(matchIds);
    expect(new Set(all).size).toBe(all.length);
    expect(all).toEqual(['w 154.3 lb', 'hr 134', 'hr 120.5', 'hr 120', 'hr 119.5', 'hr 119.4'].map((n) => ids.get(n)));
  });

  it('combines with date and the scope: another patient sees none of them', async () => {
    expect(await found(`${HR}&value-quantity=gt100&date=lt2026-11-02T00:03:00Z`)).toEqual(['hr 119.4', 'hr 119.5', 'hr 120']);
    const other = await observationWorld();
    const res = await search(other.patient.token, `patient=${world.patient.id}&value-quantity=gt0`);
    expect(res.status).toBe(200);
    expect(matchIds(res)).toEqual([]);
  });

  it('a malformed value is a 400 naming the parameter', async () => {
    const res = await search(world.patient.token, 'value-quantity=gtabc');
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.json)).toContain('value-quantity');
  });
});
