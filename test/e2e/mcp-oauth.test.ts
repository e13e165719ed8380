/**
 * An assistant connecting to `npm start` as a person would connect it (issue 34, "Done when"):
 * the official MCP TypeScript client (v2) with an OAuth client provider of the test's, headless.
 * It connects without a token and gets the 401; the SDK's own OAuth code finds the protected
 * resource metadata from the challenge, then the authorization server's metadata, registers a
 * public client (RFC 7591) on a loopback redirect URI, and sends the browser to the authorize URL
 * with PKCE S256 and `resource=<site>/mcp`; the "browser" signs in with a demo account's password
 * (printed in the banner), approves the consent page and brings back `code`, `state` and `iss`
 * (RFC 9207), which the SDK exchanges. Then `tools/list`, every tool once, a resource read, a
 * refresh through the SDK (the refresh token rotates; the old one is refused and ends the grant),
 * and tokens of the other resource refused both ways (RFC 8707). Four times, in sequence, on one
 * `npm start`: on the 2025 protocol (initialize) and pinned to 2026-07-28 (server/discover), as the
 * demo patient (only their own data; patient 2 answers as unknown) and as the demo practitioner
 * (patients 1 and 2).
 */
import {
  Client,
  IssuerMismatchError,
  LATEST_PROTOCOL_VERSION,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  auth,
  type CallToolResult,
  type ClientOptions,
  type FetchLike,
} from '@modelcontextprotocol/client';
import { decodeJwt } from 'jose';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PATIENT_EMAIL, DEMO_PRACTITIONER_EMAIL } from '../../local/demo-directory';
import { DAYS } from '../../local/demo-observations';
import { GLUCOSE_PER_DAY } from '../../local/demo-readings';
import { freePort } from '../../local/engines';
import { s256Challenge } from '../../shared/oauth/pkce';
import { TOOLS } from '../../shared/mcp/server';
import { AssistantProvider, fetchPage, signInAndApprove } from '../support/mcp-oauth';
import { unescapeHtml } from '../support/oauth-flow';
import { NpmStart } from '../support/npm-start';

const dataDir = mkdtempSync(join(tmpdir(), 'cdx-mcp-oauth-'));
const service = new NpmStart(dataDir);
let site: string;
let mcpUrl: string;

beforeAll(async () => {
  await service.start({ LOG_LEVEL: 'warn' });
  site = service.url('');
  mcpUrl = `${site}/mcp`;
});

afterAll(async () => {
  expect(await service.stop()).toBe(true);
  rmSync(dataDir, { recursive: true, force: true });
});

const MODERN = '2026-07-28';
const ERAS: ReadonlyArray<{ era: 'legacy' | 'modern'; label: string; options: ClientOptions }> = [
  { era: 'legacy', label: `the 2025 protocol (${LATEST_PROTOCOL_VERSION}, initialize)`, options: {} },
  { era: 'modern', label: `pinned to ${MODERN} (server/discover)`, options: { versionNegotiation: { mode: { pin: MODERN } } } },
];
const ACCOUNTS = [
  { who: 'patient', email: DEMO_PATIENT_EMAIL },
  { who: 'practitioner', email: DEMO_PRACTITIONER_EMAIL },
] as const;
type Who = (typeof ACCOUNTS)[number]['who'];

/** One exchange the client made, as it went over the wire. */
interface Exchange {
  method: string;
  path: string;
  status: number;
  challenge: string | null;
}

/** The SDK's fetch, recorded: every MCP and OAuth request the client and its auth code make. */
function recording(log: Exchange[]): FetchLike {
  return async (url, init) => {
    const res = await fetch(url, init);
    log.push({ method: init?.method ?? 'GET', path: new URL(String(url)).pathname, status: res.status, challenge: res.headers.get('www-authenticate') });
    return res;
  };
}

function connectClient(provider: AssistantProvider, options: ClientOptions, log: Exchange[]) {
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider, fetch: recording(log) });
  const client = new Client({ name: provider.clientName, version: '1' }, options);
  return { transport, client, connected: client.connect(transport) };
}

/** A `from` a year back: the demo readings are the last two weeks', and `$stats` spans at most twenty years. */
const aYearAgo = () => new Date(Date.now() - 365 * 86_400_000).toISOString().slice(0, 10);

const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;

/**
 * Each tool once, with arguments valid for the account, and what its answer must show of the demo
 * data. Patient 1 is Alex Rivera (the patient's own record, in study 1); patient 2, Sam Chen, is
 * visible to the practitioner only.
 */
function toolCalls(who: Who): ReadonlyArray<{ name: string; args: Record<string, unknown>; check: (result: CallToolResult) => void }> {
  const patient = who === 'patient';
  const answered = (result: CallToolResult) => {
    expect(result.isError, text(result)).toBeFalsy();
    return result.structuredContent as any;
  };
  return [
    {
      name: 'list_studies',
      args: {},
      check: (r) => {
        const s = answered(r);
        expect(s.count).toBeGreaterThan(0);
        expect(s.studies.map((x: { name: string }) => x.name)).toContain('Heart Health Pilot');
      },
    },
    {
      name: 'get_study',
      args: { studyId: 1 },
      check: (r) => {
        const { study } = answered(r);
        expect(study).toMatchObject({ id: 1, name: 'Heart Health Pilot', enrolledPatients: patient ? null : 1 });
        expect(study.readingTypes.length).toBe(20);
      },
    },
    {
      name: 'list_study_patients',
      args: { studyId: 1 },
      check: (r) => {
        if (patient) {
          // A patient is never told who else takes part.
          expect(r.isError).toBe(true);
          expect(text(r)).not.toContain('Rivera');
          return;
        }
        expect(answered(r)).toMatchObject({ count: 1, patients: [{ id: 1, nameGiven: 'Alex', nameFamily: 'Rivera' }] });
      },
    },
    {
      name: 'get_patient',
      args: { patientId: patient ? 1 : 2 },
      check: (r) => {
        const expected = patient ? { id: 1, nameGiven: 'Alex', nameFamily: 'Rivera' } : { id: 2, nameGiven: 'Sam', nameFamily: 'Chen' };
        expect(answered(r).patient).toMatchObject(expected);
      },
    },
    {
      name: 'patient_reading_dates',
      args: { patientId: 1, readingType: 'heart-rate' },
      check: (r) => {
        const s = answered(r);
        expect(s).toMatchObject({ patientId: 1, readingType: 'omh:heart-rate:2.0' });
        expect(Date.parse(s.first)).toBeLessThan(Date.parse(s.last));
      },
    },
    {
      name: 'count_readings',
      args: patient ? { patientId: 1 } : { patientId: 2 },
      check: (r) => {
        const s = answered(r);
        expect(s).toMatchObject({ patientId: patient ? 1 : 2 });
        expect(s.total).toBeGreaterThan(0);
        expect(s.byType.find((t: { type: string }) => t.type === 'omh:heart-rate:2.0')?.count).toBeGreaterThan(0);
      },
    },
    {
      name: 'summarize_patient_readings',
      args: { patientId: 1 },
      check: (r) => {
        const types = answered(r).types;
        const heartRate = types.find((t: { type: string }) => t.type === 'omh:heart-rate:2.0');
        expect(heartRate.count).toBeGreaterThan(0);
        expect(heartRate.averages[0]).toMatchObject({ member: 'heart_rate', unit: 'beats/min' });
        // The glucose sensor's two weeks, a reading every 5 minutes.
        expect(types.find((t: { type: string }) => t.type === 'omh:blood-glucose:4.0')?.count).toBe(DAYS * GLUCOSE_PER_DAY);
      },
    },
    {
      name: 'get_readings',
      args: { patientId: 1, readingType: 'blood-pressure', pageSize: 3 },
      check: (r) => {
        const s = answered(r);
        expect(s.readings).toHaveLength(3);
        expect(s.readings.every((x: { type: string }) => x.type === 'omh:blood-pressure:4.0')).toBe(true);
        expect(s.nextCursor).toEqual(expect.any(String));
      },
    },
    {
      name: 'search_readings_by_value',
      args: { patientId: 1, readingType: 'heart-rate', comparator: 'gt', value: 100 },
      check: (r) => {
        // The demo's daily workouts: some heart rates above 100, most below.
        const s = answered(r);
        expect(s.total).toBeGreaterThan(50);
        expect(s.total).toBeLessThan(300);
        expect(s.readings.length).toBeGreaterThan(0);
        expect(s.readings.every((x: { values: Array<{ value: number }> }) => x.values[0]!.value > 100)).toBe(true);
      },
    },
    {
      name: 'reading_statistics',
      args: { patientId: 1, readingType: 'heart-rate', from: aYearAgo(), statistics: ['count', 'average'] },
      check: (r) => {
        const s = answered(r);
        expect(s.intervals).toHaveLength(1);
        const count = s.intervals[0].values.find((v: { statistic: string }) => v.statistic === 'count');
        expect(count.value).toBeGreaterThan(0);
      },
    },
    {
      name: 'latest_readings',
      args: { patientId: 1, category: 'vital-signs' },
      check: (r) => {
        const types = answered(r).readings.map((x: { type: string }) => x.type);
        expect(types).toContain('omh:heart-rate:2.0');
      },
    },
    {
      name: 'clinical_record',
      args: { patientId: 1, section: 'conditions' },
      check: (r) => {
        const [conditions] = answered(r).sections;
        expect(conditions).toMatchObject({ section: 'conditions', resourceType: 'Condition' });
        expect(conditions.total).toBeGreaterThan(0);
      },
    },
    {
      name: 'get_omh_schema',
      args: { readingType: 'blood-pressure' },
      check: (r) => {
        const { schema } = answered(r);
        expect(schema.code).toBe('omh:blood-pressure:4.0');
        expect(schema.members.map((m: { name: string }) => m.name)).toContain('systolic_blood_pressure');
      },
    },
  ];
}

/** A token the service issued this client for the FHIR API (no `resource`): the same sign-in, a code, its exchange. */
async function apiToken(provider: AssistantProvider, email: string, password: string): Promise<string> {
  const clientId = provider.clientInformation()!.client_id;
  const verifier = 'v'.repeat(50);
  const authorize = new URL('/o/authorize/', site);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: provider.redirectUrl,
    scope: 'openid fhirUser patient/*.rs user/*.rs',
    state: 'api',
    code_challenge: s256Challenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const { callback } = await signInAndApprove(site, authorize, email, password);
  const res = await fetchPage(`${site}/o/token/`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: callback.searchParams.get('code')!, redirect_uri: provider.redirectUrl, client_id: clientId, code_verifier: verifier }).toString(),
  });
  expect(res.status, res.text).toBe(200);
  expect(decodeJwt(res.json.access_token).aud).toBe(site);
  return res.json.access_token as string;
}

/** A bare 2025 initialize to `/mcp` with a bearer token: the status and the challenge. */
async function mcpWith(token: string) {
  const res = await fetchPage(mcpUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  return { status: res.status, challenge: res.headers['www-authenticate'] ?? '' };
}

const fhirWith = async (token: string) => (await fetchPage(`${site}/FHIR/R5/Observation?_count=1`, { headers: { authorization: `Bearer ${token}` } })).status;

describe.each(ERAS)('the official MCP client on $label', ({ era, label, options }) => {
  it.each(ACCOUNTS)('connects as the demo $who through the whole OAuth flow, calls every tool, refreshes and keeps to its resource', async ({ who, email }) => {
    const password = service.passwords().get(email);
    expect(password, `the banner names no password for ${email}`).toBeDefined();
    const provider = new AssistantProvider(site, { email, password: password! }, `E2E assistant ${who} ${era}`, await freePort());

    // 1. No token: the 401, and the SDK's own discovery, registration and authorization request.
    const wire: Exchange[] = [];
    const first = connectClient(provider, options, wire);
    await expect(first.connected).rejects.toBeInstanceOf(UnauthorizedError);
    expect(wire[0]).toMatchObject({ method: 'POST', path: '/mcp', status: 401 });
    expect(wire[0]!.challenge).toContain(`resource_metadata="${site}/.well-known/oauth-protected-resource/mcp"`);
    expect(wire.slice(1).map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
      'GET /.well-known/oauth-protected-resource/mcp 200',
      'GET /.well-known/oauth-authorization-server 200',
      'POST /o/register/ 201',
    ]);
    expect(provider.savedClients).toHaveLength(1);
    const clientId = provider.savedClients[0]!.client_id;
    expect(clientId).toMatch(/^[\w-]{16,}$/);

    const { authorizationUrl, consentPage, callback } = provider.lastVisit();
    expect(`${authorizationUrl.origin}${authorizationUrl.pathname}`).toBe(`${site}/o/authorize/`);
    expect(Object.fromEntries(authorizationUrl.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: provider.redirectUrl,
      code_challenge_method: 'S256',
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      resource: mcpUrl,
      state: provider.state(),
    });
    expect(consentPage).toContain(provider.clientName);
    expect(consentPage).toContain('127.0.0.1');
    expect(unescapeHtml(consentPage!)).toContain("through the assistants' endpoint /mcp");
    expect(`${callback.origin}${callback.pathname}`).toBe(provider.redirectUrl);
    expect(callback.searchParams.get('code')).toEqual(expect.any(String));
    expect(callback.searchParams.get('state')).toBe(provider.state());
    expect(callback.searchParams.get('iss')).toBe(site);

    // 2. The code for the tokens (the SDK checks iss against the metadata's issuer), then the session.
    // RFC 9207 as the SDK applies it: a callback naming another issuer is refused before the code is sent anywhere.
    const mixedUp = new URLSearchParams(callback.searchParams);
    mixedUp.set('iss', 'https://elsewhere.example');
    await expect(first.transport.finishAuth(mixedUp)).rejects.toBeInstanceOf(IssuerMismatchError);
    expect(provider.savedTokens).toHaveLength(0);
    await first.transport.finishAuth(callback.searchParams);
    expect(provider.savedTokens).toHaveLength(1);
    const issued = provider.tokens()!;
    expect(issued.refresh_token).toEqual(expect.any(String));
    expect(decodeJwt(issued.access_token)).toMatchObject({ aud: mcpUrl, iss: site, client_id: clientId });

    const sent: Exchange[] = [];
    const { client, transport, connected } = connectClient(provider, options, sent);
    await connected;
    expect(client.getProtocolEra(), label).toBe(era);
    if (era === 'modern') expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    else expect(transport.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    // No 401 once it has the token (a 2025 client's notifications/initialized is answered 202).
    expect(sent.map((e) => e.status).filter((status) => status !== 200 && status !== 202)).toEqual([]);

    const { tools } = await client.listTools();
    expect(tools).toHaveLength(13);
    expect(tools.map((t) => t.name)).toEqual(TOOLS.map((t) => t.name));
    const calls = toolCalls(who);
    expect(calls.map((c) => c.name).sort()).toEqual(tools.map((t) => t.name).sort());
    for (const { name, args, check } of calls) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      check(result);
    }
    // A patient's assistant sees only the patient: patient 2 answers exactly as an id that does not exist.
    const two = (await client.callTool({ name: 'get_patient', arguments: { patientId: 2 } })) as CallToolResult;
    if (who === 'patient') {
      const unknown = (await client.callTool({ name: 'get_patient', arguments: { patientId: 987_654 } })) as CallToolResult;
      expect(two.isError).toBe(true);
      expect(text(two).replace(/\b2\b/, 'N')).toBe(text(unknown).replace('987654', 'N'));
      expect(text(two)).not.toContain('Chen');
    } else {
      const one = (await client.callTool({ name: 'get_patient', arguments: { patientId: 1 } })) as CallToolResult;
      expect([one, two].map((r) => (r.structuredContent as { patient: { nameFamily: string } }).patient.nameFamily)).toEqual(['Rivera', 'Chen']);
    }
    const { contents } = await client.readResource({ uri: 'omh://schema/omh:heart-rate:2.0' });
    expect(contents[0]).toMatchObject({ uri: 'omh://schema/omh:heart-rate:2.0', mimeType: 'application/json' });
    expect(JSON.parse((contents[0] as { text: string }).text)).toMatchObject({ code: 'omh:heart-rate:2.0' });

    // 3. A refresh through the SDK's own code: a new access token and a new refresh token, still for /mcp.
    expect(await auth(provider, { serverUrl: mcpUrl })).toBe('AUTHORIZED');
    expect(provider.savedTokens).toHaveLength(2);
    const refreshed = provider.tokens()!;
    expect(refreshed.refresh_token).toEqual(expect.any(String));
    expect(refreshed.refresh_token).not.toBe(issued.refresh_token);
    expect(refreshed.access_token).not.toBe(issued.access_token);
    expect(decodeJwt(refreshed.access_token)).toMatchObject({ aud: mcpUrl });
    const after = (await client.callTool({ name: 'get_omh_schema', arguments: { readingType: 'heart-rate' } })) as CallToolResult;
    expect(after.structuredContent).toMatchObject({ schema: { code: 'omh:heart-rate:2.0' } });

    // 4. One resource per token (RFC 8707): the API's token is refused at /mcp, the /mcp token at the FHIR API.
    const forApi = await apiToken(provider, email, password!);
    expect(await fhirWith(forApi)).toBe(200);
    const refused = await mcpWith(forApi);
    expect(refused.status).toBe(401);
    expect(refused.challenge).toContain('error="invalid_token"');
    expect(refused.challenge).toContain(`resource_metadata="${site}/.well-known/oauth-protected-resource/mcp"`);
    expect(await fhirWith(refreshed.access_token)).toBe(401);
    expect((await mcpWith(refreshed.access_token)).status).toBe(200);

    // 5. The rotated-out refresh token is refused, and its coming back ends the grant (the new tokens too).
    const replay = await fetchPage(`${site}/o/token/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: issued.refresh_token!, client_id: clientId }).toString(),
    });
    expect(replay.status).toBe(400);
    expect(replay.json).toMatchObject({ error: 'invalid_grant' });
    expect((await mcpWith(refreshed.access_token)).status).toBe(401);
    await client.close();
  });
});
