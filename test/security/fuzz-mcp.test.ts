/**
 * Fuzzing `POST /mcp` (docs/mcp.md): malformed and hostile JSON-RPC (any method, id, params, batch,
 * a tool's arguments mutated from valid ones or made of hostile keys and text, a 2026-07-28 `_meta`
 * envelope valid, mutated or hostile), wrong and missing headers (Accept, Content-Type, the protocol
 * version, the 2026-07-28 method and name headers, a session id the stateless server never gave),
 * as a patient and as a practitioner, with tokens issued for `/mcp`. Every answer is below
 * 500; a 200 carries JSON-RPC messages; and another patient's name or readings never appear.
 */
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { TOOLS } from '../../shared/mcp/server';
import { forMcp } from '../support/directory';
import { CaseCount, fuzz, fuzzTimeout } from '../support/fuzz';
import { hostileKey, hostileText, mutationsOf } from '../support/fuzz-inputs';
import { call } from '../support/invoke';
import { observation, observationWorld, upload, type ObservationWorld } from '../support/observations';

let a: ObservationWorld;
let b: ObservationWorld;
const tokens: string[] = [];
const cases = new CaseCount('mcp');
const QUICK = 40;
vi.setConfig({ testTimeout: fuzzTimeout(QUICK * 2) });

/** A value B's data holds, which nothing A's callers are answered may show. */
const B_MARKER = 187;

beforeAll(async () => {
  a = await observationWorld();
  b = await observationWorld();
  const hr = (world: ObservationWorld, value: number) => observation(world, { code: 'omh:heart-rate:2.0', at: Date.UTC(2026, 0, 5, 8), form: 'date_time', members: { heart_rate: { value, unit: 'beats/min' } } });
  expect((await upload(a.patient.token, [hr(a, 72)])).status).toBe(200);
  expect((await upload(b.patient.token, [hr(b, B_MARKER)])).status).toBe(200);
  tokens.push(await forMcp(a.patient.token), await forMcp(a.practitioner.token));
});

const TOOL_NAMES = TOOLS.map((t) => t.name);
const METHODS = ['server/discover', 'subscriptions/listen', 'initialize', 'tools/list', 'tools/call', 'resources/list', 'resources/read', 'resources/templates/list', 'prompts/list', 'ping', 'notifications/initialized', 'logging/setLevel', 'completion/complete'];

/** Arguments a tool might be given: a valid-looking set for A or B, mutated, or hostile. */
const argumentsOf = fc.oneof(
  mutationsOf(() => ({ patient_id: String(a.patient.id), code: 'omh:heart-rate:2.0', comparator: 'gt', value: 100, period: { start: '2026-01-01', end: '2026-02-01' }, limit: 5 })),
  mutationsOf(() => ({ patient_id: String(b.patient.id), study_id: '1', cursor: 'x', interval: 'day', max: 3 })),
  fc.dictionary(hostileKey, fc.oneof(hostileText, fc.integer(), fc.double(), fc.constant(null), fc.array(hostileText, { maxLength: 3 })), { maxKeys: 6 }),
);

const message = fc.record(
  {
    jsonrpc: fc.oneof({ weight: 8, arbitrary: fc.constant('2.0') }, { weight: 1, arbitrary: fc.constantFrom('1.0', 2) }),
    id: fc.oneof({ weight: 8, arbitrary: fc.nat() }, { weight: 1, arbitrary: fc.oneof(hostileText, fc.constant(null), fc.constant({ a: 1 })) }),
    method: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...METHODS) }, { weight: 1, arbitrary: hostileText }),
    params: fc.oneof(
      fc.record({ name: fc.oneof(fc.constantFrom(...TOOL_NAMES), hostileText), arguments: argumentsOf }),
      fc.record({ uri: fc.oneof(fc.constantFrom('omh://schema/omh:heart-rate:2.0', 'omh://schema/nope', 'omh://schema/', 'file:///etc/passwd'), hostileText) }),
      fc.record({ protocolVersion: fc.constantFrom('2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28', '1999-01-01'), capabilities: fc.constant({}), clientInfo: fc.constant({ name: 'fuzz', version: '1' }) }),
      argumentsOf,
    ),
  },
  { requiredKeys: ['jsonrpc', 'id', 'method'] },
);

/** The 2026-07-28 revision's per-request `_meta`: as a client sends it, mutated, or made of hostile keys and text. */
const envelope = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ [PROTOCOL_VERSION_META_KEY]: '2026-07-28', [CLIENT_INFO_META_KEY]: { name: 'fuzz', version: '1' }, [CLIENT_CAPABILITIES_META_KEY]: {} }) },
  { weight: 2, arbitrary: mutationsOf(() => ({ [PROTOCOL_VERSION_META_KEY]: '2026-07-28', [CLIENT_INFO_META_KEY]: { name: 'fuzz', version: '1' }, [CLIENT_CAPABILITIES_META_KEY]: { elicitation: {} } })) },
  { weight: 1, arbitrary: fc.dictionary(fc.oneof(fc.constantFrom(PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY), hostileKey), fc.oneof(hostileText, fc.constant({}), fc.constant(null)), { maxKeys: 4 }) },
);

/** A message of the 2026-07-28 revision: its params carry the envelope. */
const modernMessage = fc.tuple(message, envelope).map(([m, meta]) => {
  const params = m.params !== null && typeof m.params === 'object' && !Array.isArray(m.params) ? m.params : {};
  return { ...m, params: { ...params, _meta: meta } };
});

const body = fc.oneof(
  { weight: 5, arbitrary: message },
  { weight: 4, arbitrary: modernMessage },
  { weight: 1, arbitrary: fc.array(modernMessage, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.array(message, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.oneof(hostileText, fc.integer(), fc.constant(null), fc.constant([]), fc.constant({})) },
);

/** Mostly what a client sends (so most cases reach the server and its tools), sometimes not. */
const headers = fc.record(
  {
    accept: fc.oneof({ weight: 6, arbitrary: fc.constant('application/json, text/event-stream') }, { weight: 1, arbitrary: fc.constantFrom('application/json', 'text/event-stream', 'text/html', '*/*', '') }),
    'content-type': fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: fc.constantFrom('application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded') }),
    'mcp-protocol-version': fc.oneof({ weight: 4, arbitrary: fc.constantFrom('2025-06-18', '2025-11-25', '2026-07-28') }, { weight: 1, arbitrary: hostileText }),
    'mcp-method': fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...METHODS) }, { weight: 1, arbitrary: hostileText }),
    'mcp-name': fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...TOOL_NAMES, 'omh://schema/omh:heart-rate:2.0') }, { weight: 1, arbitrary: hostileText }),
    'mcp-session-id': fc.oneof(hostileText, fc.uuid()),
  },
  { requiredKeys: ['accept', 'content-type'] },
);

describe('POST /mcp', () => {
  it('answers any JSON-RPC and any headers below 500, and never shows another patient', async () => {
    await fuzz(QUICK, fc.tuple(body, headers, fc.nat({ max: 1 })), async ([sent, sentHeaders, who]) => {
      cases.tried('/mcp');
      const clean = Object.fromEntries(Object.entries(sentHeaders).filter(([, v]) => v !== '' && !/[\r\n\0]/.test(String(v)) && /^[\t\x20-\x7e]*$/.test(String(v))));
      const res = await call('POST', '/mcp', { token: tokens[who]!, body: sent, headers: clean as Record<string, string> });
      const seen = `${JSON.stringify(sent).slice(0, 300)} ${JSON.stringify(clean)} -> ${res.status} ${res.text.slice(0, 300)}`;
      expect(res.status, seen).toBeLessThan(500);
      if (res.status === 200) {
        const messages = [res.json].flat();
        for (const m of messages) expect(m?.jsonrpc, seen).toBe('2.0');
      }
      expect(res.text.includes(`"value":${B_MARKER}`) || res.text.includes(`Patient/${b.patient.id}"`), seen).toBe(false);
    });
  });
});
