/**
 * The isolation matrix: every route of every family (isolation-table.ts), called by every caller
 * (callers.ts) against one world (world.ts). Each answer must carry the table's exact status, must
 * show no data of a patient the caller may not see, and a write the caller may not make must leave
 * every store as it was. A route without a row, or a row without a route, fails.
 */
import pMap from 'p-map';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from '../../functions/fhir/handler';
import { auxiliaryHandlers } from '../../shared/auxiliary/http';
import { familyForPath } from '../../shared/http/families';
import type { Route } from '../../shared/http/router';
import { call } from '../support/invoke';
import { everyStoredRow } from '../support/store';
import { CALLERS, hiddenFrom, worldOfCallers, type Caller, type Tokens } from './callers';
import { AUXILIARY_STAND_IN, TABLE } from './isolation-table';
import { leaked, markersOf } from './leaks';
import { FAMILY_ROUTES, FHIR_ALIASES, FHIR_BASE, owedRows, REGISTERED_TYPES, routeName, routeReached, servedRoutes, typeFamilyOf } from './route-inventory';
import { storeChanges } from './store-changes';
import { sendProbe, type Probe, type Row } from './table-model';
import type { World } from './world';

const keyOf = (row: Row) => (row.type ? `${row.route} ${row.type}` : row.route);
const methodOf = (row: Row) => row.route.split(' ')[0]!;
const SAFE_METHODS = new Set(['GET', 'OPTIONS']);

/** Who may change something with this row: its declared writers, else whoever gets a 2xx. */
const mayWrite = (row: Row, caller: Caller) => (row.writers ? row.writers.includes(caller) : row.expect[caller] < 300);

describe('the table covers every route, and only routes that exist', () => {
  const rowKeys = new Set(TABLE.map(keyOf));
  const served = new Set(servedRoutes().map((r) => r.name));

  it('has a row for every route (FHIR `{type}` templates per type)', () => {
    expect(owedRows(AUXILIARY_STAND_IN).filter((owed) => !rowKeys.has(owed))).toEqual([]);
  });

  it('has no row for a route that is gone, or for a type that is not served', () => {
    expect(TABLE.filter((row) => !served.has(row.route)).map(keyOf)).toEqual([]);
    expect(TABLE.filter((row) => row.type !== undefined && !REGISTERED_TYPES.includes(row.type)).map(keyOf)).toEqual([]);
  });

  it('knows how every registered FHIR type is served', () => {
    expect(REGISTERED_TYPES.filter((type) => typeFamilyOf(type) === undefined)).toEqual([]);
  });

  it('serves the very same code under the /fhir/r5 alias, route for route', () => {
    const codeOf = (r: Route) => String(r.auth === 'per-request' ? r.choose : r.handler);
    const byName = (routes: readonly Route[]) => new Map(routes.map((r) => [`${r.method} ${r.path}`, codeOf(r)]));
    const routes = byName(FAMILY_ROUTES.fhir);
    const aliased = FAMILY_ROUTES.fhir.filter((r) => FHIR_ALIASES.some((a) => r.path === a || r.path.startsWith(`${a}/`)));
    expect(aliased.length).toBeGreaterThan(0);
    for (const route of aliased) expect(routes.get(routeName(route)), `${route.method} ${route.path}`).toBe(codeOf(route));
  });

  it('lets one auxiliary type stand for all of them: each is served by the very same handler code', () => {
    // The handlers are closures of one factory: the same source text per interaction is the same code path.
    const standIn = auxiliaryHandlers(AUXILIARY_STAND_IN);
    for (const type of REGISTERED_TYPES.filter((t) => typeFamilyOf(t) === 'auxiliary')) {
      const served = registry.types.get(type)!.handlers;
      for (const [interaction, handler] of Object.entries(standIn)) {
        expect(String(served[interaction as keyof typeof served]), `${type} ${interaction}`).toBe(String(handler));
      }
    }
  });
});

let world: World;
let tokens: Tokens;
/** Requests sent: by the table's rows, and of the methods no route has. */
let cases = 0;
let otherMethodCases = 0;

beforeAll(async () => {
  ({ world, tokens } = await worldOfCallers());
});

afterAll(() => {
  const routes = Object.values(FAMILY_ROUTES).reduce((n, r) => n + r.length, 0);
  console.log(
    `isolation matrix: ${routes} routes (${servedRoutes().length} once the /fhir/r5 alias is folded in), ${REGISTERED_TYPES.length} FHIR types, ` +
      `${TABLE.length} table rows, ${CALLERS.length} callers, ${cases + otherMethodCases} cases ` +
      `(${cases} from the table, ${otherMethodCases} of methods a path does not serve)`,
  );
});

describe('the leak check', () => {
  it("finds each of a patient's markers in what the patient is shown", async () => {
    for (const side of [world.A, world.B]) {
      const token = side.patient.token;
      const views = await Promise.all(
        [
          `/FHIR/R5/Observation?patient=${side.patient.id}`,
          `/FHIR/R5/Observation/${side.labObservationId}`,
          `/FHIR/R5/Condition/${side.conditionId}`,
          `/api/v1/patients/${side.patient.id}`,
          '/api/v1/fhir_sources',
        ].map((path) => call('GET', path, { token })),
      );
      const markers = markersOf(side, 'owner');
      const found = new Set(views.flatMap((res) => leaked(markers, '', res.text)));
      expect(markers.map((m) => m.what).filter((what) => !found.has(what))).toEqual([]);
    }
  });
});

/** The first row of each route: the one also sent under every alias base. */
const FIRST_ROWS = new Set(TABLE.filter((row, i) => TABLE.findIndex((r) => r.route === row.route) === i));

/**
 * The bases a row is sent under: a FHIR row under the canonical base and, for the first row of its
 * route, under every alias too. The alias serves the very same code (checked above); that one row
 * per route shows every caller reaches it the same way there.
 */
function basesOf(row: Row): string[] {
  const path = row.route.split(' ')[1]!;
  if (path !== FHIR_BASE && !path.startsWith(`${FHIR_BASE}/`)) return [''];
  return FIRST_ROWS.has(row) ? [FHIR_BASE, ...FHIR_ALIASES] : [FHIR_BASE];
}

const rebased = (path: string, base: string) => (base && base !== FHIR_BASE ? `${base}${path.slice(FHIR_BASE.length)}` : path);

function requestText(path: string, probe: Probe): string {
  return [path, JSON.stringify(probe.body ?? null), ...Object.values(probe.headers ?? {})].join('\n');
}

/** One caller's request under one base: the status, and no data the caller may not see. */
async function runCase(row: Row, caller: Caller, base: string): Promise<string> {
  const method = methodOf(row);
  // A caller allowed to use up the target gets a disposable one; everyone else aims at A's own.
  const aimedAt = row.fresh && row.expect[caller] < 300 ? await row.fresh(world) : world;
  const probe = row.send(aimedAt);
  const path = rebased(probe.path, base);
  const reached = routeReached(familyForPath(path), method, path);
  expect(reached?.name, `${method} ${path} must reach the row's route`).toBe(row.route);
  if (row.type) expect(reached?.params.type).toBe(row.type);

  const res = await sendProbe(method, path, probe, tokens[caller]);
  cases += 1;
  const about = `${caller}: ${method} ${path} -> ${res.status} ${res.text.slice(0, 300)}`;
  expect.soft(res.status, about).toBe(row.expect[caller]);
  const markers = hiddenFrom(caller, world).flatMap((side) => markersOf(side, side === world.A ? 'A' : 'B'));
  const answer = [res.text, ...Object.values(res.headers)].join('\n');
  expect.soft(leaked(markers, requestText(path, probe), answer), `${about}\nleaks`).toEqual([]);
  const unseenMatches = hiddenMatches(res.json);
  if (unseenMatches !== undefined) expect.soft(unseenMatches, `${about}\ntotal counts matches the caller is not shown`).toBe(0);
  return about;
}

/**
 * A count is data too: a one-page searchset's `total` beyond the matches it shows counts what the
 * caller was not shown. `undefined` for anything else (other answers, searches with more pages).
 */
function hiddenMatches(body: unknown): number | undefined {
  const bundle = body as { resourceType?: string; type?: string; total?: number; link?: Array<{ relation: string }>; entry?: Array<{ search?: { mode?: string } }> };
  if (bundle?.resourceType !== 'Bundle' || bundle.type !== 'searchset' || bundle.total === undefined) return undefined;
  if (bundle.link?.some((l) => l.relation === 'next' || l.relation === 'previous')) return undefined;
  return bundle.total - (bundle.entry ?? []).filter((e) => e.search?.mode !== 'outcome').length;
}

/**
 * Reads run side by side. For a write, every caller who may not write goes first, side by side
 * between two snapshots of every store, which must be equal; then the callers who may, one by one.
 */
async function runRow(row: Row): Promise<void> {
  const runs = CALLERS.flatMap((caller) => basesOf(row).map((base) => ({ caller, base })));
  if (SAFE_METHODS.has(methodOf(row))) {
    await Promise.all(runs.map(({ caller, base }) => runCase(row, caller, base)));
    return;
  }
  const before = await everyStoredRow();
  const refused = await Promise.all(runs.filter((r) => !mayWrite(row, r.caller)).map(({ caller, base }) => runCase(row, caller, base)));
  expect.soft(storeChanges(before, await everyStoredRow()), `store changes after\n${refused.join('\n')}`).toEqual([]);
  for (const { caller, base } of runs.filter((r) => mayWrite(row, r.caller))) await runCase(row, caller, base);
}

/** Every method a client can send; HEAD included, since API Gateway passes it on. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

describe('every other method on every route path', () => {
  it('is a 405 naming the methods the path has, for every caller, before anyone is asked, changing nothing', async () => {
    const served = new Map<string, string[]>();
    for (const { name } of servedRoutes()) {
      const [method, template] = name.split(' ') as [string, string];
      served.set(template, [...(served.get(template) ?? []), method]);
    }
    const probes = [...served].flatMap(([template, methods]) => {
      const path = TABLE.find((row) => row.route.split(' ')[1] === template)!.send(world).path;
      return METHODS.filter((m) => !methods.includes(m)).flatMap((method) => CALLERS.map((caller) => ({ caller, method, path, methods })));
    });
    const before = await everyStoredRow();
    await pMap(
      probes,
      async ({ caller, method, path, methods }) => {
        const res = await sendProbe(method, path, { path }, tokens[caller]);
        otherMethodCases += 1;
        const about = `${caller}: ${method} ${path} -> ${res.status} ${res.text.slice(0, 200)}`;
        expect.soft(res.status, about).toBe(405);
        const allow = Object.entries(res.headers).find(([k]) => k.toLowerCase() === 'allow')?.[1];
        expect.soft(allow?.split(/,\s*/).sort(), about).toEqual([...methods].sort());
        const markers = hiddenFrom(caller, world).flatMap((side) => markersOf(side, side === world.A ? 'A' : 'B'));
        expect.soft(leaked(markers, path, [res.text, ...Object.values(res.headers)].join('\n')), `${about}\nleaks`).toEqual([]);
      },
      { concurrency: 16 },
    );
    expect(storeChanges(before, await everyStoredRow())).toEqual([]);
  });
});

describe('every caller on every route', () => {
  it.each(TABLE.map((row) => [`${keyOf(row)}: ${row.does}`, row] as const))('%s', async (_name, row) => runRow(row));
});
