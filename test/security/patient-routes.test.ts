/**
 * The `/api/v1/` routes declared for patients (`auth: 'patient'` in the api family's own route list,
 * so a route added later is covered) refuse a practitioner where the route is dispatched, before
 * anything of the request is read: a request a patient would succeed with (the isolation table's
 * rows for the route), a body that fails validation and an empty one all get the route's own
 * refusal, the same answer every time, and every store stays as it was. And the other way round: a
 * route the isolation table refuses (400 or 403) to every practitioner while letting some patient
 * through is declared for patients, so no such refusal is left to the domain.
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

const FOR_PATIENTS = routes.filter((route) => route.auth === 'patient');

const PATIENTS = ['patientA', 'patientB'] as const satisfies readonly Caller[];
const PRACTITIONERS = ['inOrg', 'outOrg', 'admin', 'apiKey'] as const satisfies readonly Caller[];

/** What a practitioner sends to the route: the table's requests, and the same path with a body that fails validation and an empty one. */
function requestsTo(name: string, w: World): Array<{ about: string; probe: Probe }> {
  const aimed = TABLE.filter((row) => row.route === name).map((row) => ({ about: row.does, probe: row.send(w) }));
  const path = aimed[0]!.probe.path;
  return [
    ...aimed,
    { about: 'a body that fails validation', probe: { path, body: { unknown_field: '<b>', system: 12, data_source: 'all' }, headers: JSON_HEADERS } },
    { about: 'an empty body', probe: { path, body: {}, headers: JSON_HEADERS } },
  ];
}

let world: World;
let tokens: Tokens;
let sent = 0;

beforeAll(async () => {
  ({ world, tokens } = await worldOfCallers());
});

afterAll(() => console.log(`routes for patients: ${FOR_PATIENTS.length} routes, ${sent} requests by practitioners`));

describe("the api family's routes for patients", () => {
  it('are the routes refused to every practitioner while some patient gets through', () => {
    const refusedToPractitioners = [...new Set(routes.map(routeName))].filter((name) => {
      const rows = TABLE.filter((row) => row.route === name);
      const refused = rows.length > 0 && rows.every((row) => PRACTITIONERS.every((p) => row.expect[p] === 403 || row.expect[p] === 400));
      return refused && rows.some((row) => PATIENTS.some((p) => row.expect[p] < 400));
    });
    expect(FOR_PATIENTS.map(routeName).sort()).toEqual(refusedToPractitioners.sort());
    expect(FOR_PATIENTS.map(routeName).sort()).toEqual(['GET /api/v1/patients/me', 'POST /api/v1/fhir_sources', 'POST /api/v1/portal/identifier']);
  });

  it.each(FOR_PATIENTS.map((route) => [routeName(route), route] as const))('%s: its refusal for a practitioner before the request is read, changing nothing', async (name, route) => {
    if (route.auth !== 'patient') throw new Error('not a route for patients');
    const method = name.split(' ')[0]!;
    const before = await everyStoredRow();
    const answers = await Promise.all(
      PRACTITIONERS.flatMap((practitioner) =>
        requestsTo(name, world).map(async ({ about, probe }) => {
          const res = await sendProbe(method, probe.path, probe, tokens[practitioner]);
          sent += 1;
          return { about: `${practitioner}, ${about}`, answer: [res.status, res.json] };
        }),
      ),
    );
    const refusal = answers[0]!.answer;
    expect(refusal[0]).toBe(route.refusal().status);
    expect(answers).toEqual(answers.map(({ about }) => ({ about, answer: refusal })));
    expect(storeChanges(before, await everyStoredRow())).toEqual([]);
  });
});
