/**
 * A backend service's token across every route of the isolation table (isolation-table.ts), in the
 * matrix's world: the backend client belongs to `inOrg`, whose API key is the table's `apiKey`
 * caller, so each row's `apiKey` cell says what the practitioner gets. The token with
 * `system/*.rs` must get, on every route:
 * - a read of the FHIR API or of the public routes: what `apiKey` gets, the same resources;
 * - a write anywhere: refused (a 4xx, or the batch's per-entry refusals), and every store unchanged;
 * - the management API (`/api/v1/`, where a token is needed): 403.
 * A token with `system/Observation.rs` gets 403 on every FHIR type route but Observation's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { familyForPath, API_BASE, MCP_PATH } from '../../shared/http/families';
import { assertionGrant, backendKey, registerBackendClient, signAssertion } from '../support/oauth';
import { everyStoredRow } from '../support/store';
import { callerTokens, type Tokens } from './callers';
import { TABLE } from './isolation-table';
import { routeReached } from './route-inventory';
import { storeChanges } from './store-changes';
import { sendProbe, type Row } from './table-model';
import { buildWorld, type World } from './world';

let world: World;
let tokens: Tokens;
let everything: string;
let observationsOnly: string;
let cases = 0;

beforeAll(async () => {
  world = await buildWorld();
  tokens = await callerTokens(world);
  const key = await backendKey('ES384');
  const { clientId } = await registerBackendClient(world.inOrg.token, { jwks: { keys: [key.jwk] } });
  const token = async (scope: string) => {
    const res = await assertionGrant(await signAssertion(key, clientId), scope);
    expect(res.status, res.text).toBe(200);
    return res.json.access_token as string;
  };
  [everything, observationsOnly] = await Promise.all([token('system/*.rs'), token('system/Observation.rs')]);
});
afterAll(() => console.log(`backend services across the isolation table: ${TABLE.length} rows, ${cases} cases`));

const methodOf = (row: Row) => row.route.split(' ')[0]!;
const pathOf = (row: Row) => row.route.split(' ')[1]!;
/** The rows whose route takes no token: every caller with a valid token or none is treated alike there. */
const isPublic = (row: Row) => row.expect.anonymous !== 401;
const isManagement = (row: Row) => pathOf(row).startsWith(`${API_BASE}/`);
/** A read: a GET, a search by POST, an operation that only reads (`$lastn`, `$stats`, `$cgm-summary`, `$cgm-report`, by GET or POST), or an MCP exchange (the tools only read). */
const isRead = (row: Row) => methodOf(row) === 'GET' || /\/(_search|\$lastn|\$stats|\$cgm-summary|\$cgm-report)$/.test(pathOf(row)) || pathOf(row) === MCP_PATH;

/** What an answer shows, to compare two callers' answers: the resources of a Bundle, else the resource's id, else the status alone. */
function shown(res: { status: number; json: any }): unknown {
  const body = res.json;
  if (body?.resourceType === 'Bundle') return (body.entry ?? []).map((e: { fullUrl?: string; resource?: { id?: string } }) => e.fullUrl ?? e.resource?.id).sort();
  if (body?.resourceType) return `${body.resourceType}/${body.id}`;
  if (Array.isArray(body?.results)) return body.results.length;
  return res.status;
}

async function send(row: Row, token: string | undefined) {
  const probe = row.send(world);
  const method = methodOf(row);
  expect(routeReached(familyForPath(probe.path), method, probe.path)?.name, probe.path).toBe(row.route);
  cases += 1;
  return sendProbe(method, probe.path, probe, token);
}

describe('a backend service token (system/*.rs) on every route of the isolation table', () => {
  it('reads what its practitioner reads', async () => {
    const rows = TABLE.filter((row) => isRead(row) && !(isManagement(row) && !isPublic(row)));
    await Promise.all(
      rows.map(async (row) => {
        const [mine, practitioners] = await Promise.all([send(row, everything), send(row, tokens.apiKey)]);
        const about = `${row.route} ${row.type ?? ''}: ${row.does} -> ${mine.status} ${mine.text.slice(0, 200)}`;
        expect.soft(mine.status, about).toBe(row.expect.apiKey);
        expect.soft(shown(mine), about).toEqual(shown(practitioners));
      }),
    );
  });

  it('has no part of the management API', async () => {
    const rows = TABLE.filter((row) => isManagement(row) && !isPublic(row));
    expect(rows.length).toBeGreaterThan(30);
    const before = await everyStoredRow();
    for (const row of rows) {
      const res = await send(row, everything);
      expect.soft([res.status, res.json?.detail], `${row.route}: ${res.text.slice(0, 200)}`).toEqual([403, expect.stringMatching(/reads the FHIR API only/)]);
    }
    expect(storeChanges(before, await everyStoredRow())).toEqual([]);
  });

  it('writes nothing anywhere', async () => {
    const rows = TABLE.filter((row) => !isRead(row) && !isManagement(row) && !isPublic(row));
    expect(rows.length).toBeGreaterThan(10);
    const before = await everyStoredRow();
    for (const row of rows) {
      const res = await send(row, everything);
      const about = `${row.route} ${row.type ?? ''}: ${row.does} -> ${res.status} ${res.text.slice(0, 200)}`;
      // A batch answers 200 and refuses entry by entry; everything else is refused whole.
      if (row.writers) expect.soft((res.json.entry as Array<{ response: { status: string } }>).every((e) => /^4\d\d /.test(e.response.status)), about).toBe(true);
      else expect.soft(res.status, about).toBeGreaterThanOrEqual(400);
    }
    expect(storeChanges(before, await everyStoredRow())).toEqual([]);
  });
});

describe('a backend service token for Observation only (system/Observation.rs)', () => {
  it('is refused on every FHIR type route but Observation, which it reads as its practitioner does', async () => {
    // Interactions a type lacks are a 405 before anyone is asked (the public rows): left out.
    const rows = TABLE.filter((row) => row.type !== undefined && isRead(row) && !isPublic(row));
    expect(rows.length).toBeGreaterThan(50);
    await Promise.all(
      rows.map(async (row) => {
        const res = await send(row, observationsOnly);
        const about = `${row.route} ${row.type}: ${row.does} -> ${res.status} ${res.text.slice(0, 200)}`;
        if (row.type === 'Observation') expect.soft(shown(res), about).toEqual(shown(await send(row, tokens.apiKey)));
        else expect.soft([res.status, res.json.issue?.[0]?.diagnostics], about).toEqual([403, expect.stringMatching(/scopes do not cover/)]);
      }),
    );
  });
});
