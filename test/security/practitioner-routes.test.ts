/**
 * The `/api/v1/` routes declared for practitioners (`auth: 'practitioner'` in the api family's own
 * route list, so a route added later is covered) refuse a patient where the route is dispatched,
 * before anything of the request is read: a request a practitioner would succeed with (the
 * isolation table's rows for the route), a body that fails validation, an unknown id and a malformed
 * one all get the same 403 `Only practitioners may do this.`, and every store stays as it was. And
 * the other way round: a route the isolation table refuses to every patient while letting some
 * practitioner further is declared for practitioners, so no such refusal is left to the domain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../../functions/api/handler';
import { everyStoredRow } from '../support/store';
import { worldOfCallers, type Caller, type Tokens } from './callers';
import { TABLE } from './isolation-table';
import { routeName } from './route-inventory';
import { storeChanges } from './store-changes';
import { JSON_HEADERS, sendProbe, type Probe } from './table-model';
import type { World } from './world';

const FOR_PRACTITIONERS = routes.filter((route) => route.auth === 'practitioner').map(routeName);

const PATIENTS = ['patientA', 'patientB'] as const satisfies readonly Caller[];
const PRACTITIONERS = ['inOrg', 'outOrg', 'admin', 'apiKey'] as const satisfies readonly Caller[];

const REFUSAL = { detail: 'Only practitioners may do this.' };

/** Every path parameter of a template given the same value. */
const filled = (template: string, value: string) => template.replace(/\{\w+\+?\}/g, value);

/** What a patient sends to the route: the table's requests, and the same route with a bad body, an unknown id and a malformed one. */
function requestsTo(name: string, w: World): Array<{ about: string; probe: Probe }> {
  const template = name.split(' ')[1]!;
  const rows = TABLE.filter((row) => row.route === name);
  const aimed = rows.map((row) => ({ about: row.does, probe: row.send(w) }));
  const query = aimed[0]?.probe.path.split('?')[1];
  const withQuery = (path: string) => (query ? `${path}?${query}` : path);
  const invalid = { unknown_field: '<b>', name: 12, patient_ids: 'all' };
  return [
    ...aimed,
    { about: 'a body that fails validation', probe: { path: aimed[0]?.probe.path ?? filled(template, String(w.A.patient.id)), body: invalid, headers: JSON_HEADERS } },
    { about: 'an unknown id', probe: { path: withQuery(filled(template, '987654321')), body: {}, headers: JSON_HEADERS } },
    { about: 'a malformed id', probe: { path: withQuery(filled(template, 'not-an-id')), body: invalid, headers: JSON_HEADERS } },
  ];
}

let world: World;
let tokens: Tokens;
let sent = 0;

beforeAll(async () => {
  ({ world, tokens } = await worldOfCallers());
});

afterAll(() => console.log(`routes for practitioners: ${FOR_PRACTITIONERS.length} routes, ${sent} requests by patients`));

describe("the api family's routes for practitioners", () => {
  it('include the writes of records a patient may read, and the routes a patient is always refused', () => {
    expect(FOR_PRACTITIONERS).toEqual(expect.arrayContaining(['PATCH /api/v1/organizations/{id}', 'DELETE /api/v1/studies/{id}', 'GET /api/v1/studies/{id}/patients']));
    expect(FOR_PRACTITIONERS).not.toContain('GET /api/v1/organizations/{id}');
    const refusedToPatients = [...new Set(routes.map(routeName))].filter((name) => {
      const rows = TABLE.filter((row) => row.route === name);
      const patientsRefused = rows.length > 0 && rows.every((row) => PATIENTS.every((p) => row.expect[p] === 403));
      return patientsRefused && rows.some((row) => PRACTITIONERS.some((p) => row.expect[p] !== 403));
    });
    expect([...FOR_PRACTITIONERS].sort()).toEqual(refusedToPatients.sort());
  });

  it.each(FOR_PRACTITIONERS)('%s: 403 for a patient before the request is read, changing nothing', async (name) => {
    const method = name.split(' ')[0]!;
    const requests = requestsTo(name, world);
    const before = await everyStoredRow();
    const answers = await Promise.all(
      PATIENTS.flatMap((patient) =>
        requests.map(async ({ about, probe }) => {
          const res = await sendProbe(method, probe.path, probe, tokens[patient]);
          sent += 1;
          return { about: `${patient}, ${about}: ${method} ${probe.path}`, answer: [res.status, res.json] };
        }),
      ),
    );
    expect(answers).toEqual(answers.map(({ about }) => ({ about, answer: [403, REFUSAL] })));
    expect(storeChanges(before, await everyStoredRow())).toEqual([]);
  });
});
