/** The shape of the isolation table's rows, the shorthands its cells are written with, and how a row's request is sent. */
import { MCP_PATH } from '../../shared/http/families';
import { forMcp } from '../support/directory';
import { call } from '../support/invoke';
import { CALLERS, type Caller } from './callers';
import type { World } from './world';

/** What a row sends (the method is the route's). */
export interface Probe {
  /** Path and query string. */
  path: string;
  /** JSON, or form fields when `form` is set. */
  body?: unknown;
  form?: boolean;
  headers?: Record<string, string>;
}

/** The exact status each caller must get. */
export type Expectation = Readonly<Record<Caller, number>>;

export interface Row {
  /** `METHOD /template` exactly as the route table has it (FHIR under the canonical base). */
  route: string;
  /** For FHIR templates with `{type}`: the resource type this row sends. */
  type?: string;
  /** What the request tries, in words. */
  does: string;
  send: (w: World) => Probe;
  expect: Expectation;
  /**
   * For requests that use up their target when allowed (a delete, a removal): callers expected to
   * succeed aim at a disposable copy this makes; every other caller aims at patient A's own data.
   */
  fresh?: (w: World) => Promise<World>;
  /**
   * Who may actually write, where the status does not tell (a batch answers 200 and refuses entry
   * by entry). By default: the callers expected to get a 2xx.
   */
  writers?: readonly Caller[];
}

/** Callers without a valid token: none, a deactivated account's, another audience's. */
const NO_VALID_TOKEN = { anonymous: 401, deactivatedPractitioner: 401, deactivatedPatient: 401, foreignAudience: 401 } as const;

export type SignedInCaller = Exclude<Caller, keyof typeof NO_VALID_TOKEN>;

/** A route that needs a valid token: the callers without one get 401, the others as given. */
export function signedIn(cells: Readonly<Record<SignedInCaller, number>>): Expectation {
  return { ...NO_VALID_TOKEN, ...cells };
}

/** The same status for every caller, with or without a token (public routes, and refusals made before anyone is asked). */
export function everyone(status: number): Expectation {
  return Object.fromEntries(CALLERS.map((c) => [c, status])) as Record<Caller, number>;
}

export const JSON_HEADERS = { 'content-type': 'application/json' };

/** An `/api/v1/` request with a JSON body. */
export const apiJson = (path: string, body: unknown): Probe => ({ path, body, headers: JSON_HEADERS });

/**
 * Sends a row's request (its method, a path under some base) with the caller's token: to `/mcp`,
 * the caller's token issued for it (`/mcp` takes only those; the other families refuse them:
 * test/integration/oauth/resource-indicators.test.ts).
 */
export async function sendProbe(method: string, path: string, probe: Probe, given: string | undefined) {
  const token = given && path === MCP_PATH ? await forMcp(given) : given;
  const body = probe.form ? new URLSearchParams(probe.body as Record<string, string>).toString() : probe.body;
  const headers = probe.form ? { 'content-type': 'application/x-www-form-urlencoded', ...probe.headers } : probe.headers;
  return call(method, path, { ...(token ? { token } : {}), ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) });
}
