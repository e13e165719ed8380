/**
 * The patient portal's launch configuration (docs/portal.md#what-it-does): which SMART on FHIR server it connects
 * to, as which public client, with which scopes. With one hospital (`iss` set) the connect page
 * launches there; without one it asks the patient where they get care and searches the brands
 * directory (docs/portal.md#one-hospital-or-the-picker). It comes from the deployment's settings
 * (locally `SMART_ISS`, `SMART_CLIENT_ID`, `SMART_CLIENT_IDS`, `SMART_SCOPES`; on AWS the CDK
 * context `smartIss`, `smartClientId`, `smartClientIds`, `smartScopes`) and reaches the pages as
 * `/clients/portal/config.json`, written by the local gateway or deployed next to the pages by the stack.
 */
import { READ_SCOPES } from './pulls';

export interface PortalConfig {
  /** FHIR base URL of the one hospital; empty: the patient picks one from the brands directory. */
  iss: string;
  /** The client id registered at the hospitals, unless `clientIds` names another. */
  clientId: string;
  /** Space-separated scopes. */
  scope: string;
  /**
   * Client ids registered for some hospitals only: `[FHIR base URL prefix, client id]`, the longest
   * matching prefix winning (a vendor hosting its customers under one origin registers once).
   */
  clientIds: Array<[string, string]>;
  /** Origins beyond `https:` the picker's pages may connect to (a local hospital on `http:`). */
  origins: string[];
}

/** The portal's scopes (`openid`, `profile`, `launch/patient`, Patient and Observation reads) and a read scope for every other type the portal reads. */
export const DEFAULT_SMART_SCOPES = ['openid', 'profile', 'launch/patient', ...READ_SCOPES].join(' ');
export const DEFAULT_SMART_CLIENT_ID = 'cdx-portal';

/** Where the configuration is served, relative to the site root. */
export const PORTAL_CONFIG_FILE = 'clients/portal/config.json';
export const PORTAL_PATH = '/clients/portal/';
/** The glucose page: the patient's CGM summary and AGP, and "Send to my hospital". */
export const PORTAL_GLUCOSE_PATH = '/clients/portal/glucose';
/** The redirect URI to register with the hospital: `<origin>/clients/portal/callback`, byte for byte. */
export const PORTAL_CALLBACK_PATH = '/clients/portal/callback';

export interface PortalSettings {
  iss?: string | undefined;
  clientId?: string | undefined;
  scopes?: string | undefined;
  /** A JSON object `{"<FHIR base URL prefix>": "<client id>"}` (or the object itself, from CDK context). */
  clientIds?: unknown;
  /** Comma- or space-separated origins. */
  origins?: string | undefined;
}

const isWebUrl = (value: string) => /^https?:\/\/[^\s/]+/.test(value);
const MAX_CLIENT_ID = 256;
const CLIENT_IDS_SHAPE = 'The per-hospital client ids (SMART_CLIENT_IDS, smartClientIds) must be a JSON object {"<FHIR base URL prefix>": "<client id>"}';

/** The per-hospital client ids of a setting; throws on anything else, naming the setting. */
export function parseClientIds(value: unknown): Array<[string, string]> {
  if (value === undefined || value === '') return [];
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new Error(CLIENT_IDS_SHAPE);
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(CLIENT_IDS_SHAPE);
  const pairs = Object.entries(parsed);
  for (const [prefix, id] of pairs) {
    if (!isWebUrl(prefix) || typeof id !== 'string' || !id.trim() || id.length > MAX_CLIENT_ID) {
      throw new Error(`The per-hospital client ids (SMART_CLIENT_IDS, smartClientIds): "${prefix}" must be an http(s) URL prefix naming a client id of 1-${MAX_CLIENT_ID} characters`);
    }
  }
  return pairs.map(([prefix, id]) => [prefix, (id as string).trim()]);
}

/** The configuration from settings; blanks take the defaults, the scope list is normalised to single spaces. */
export function portalConfig(settings: PortalSettings): PortalConfig {
  const scope = (settings.scopes ?? '').trim().split(/\s+/).filter(Boolean).join(' ');
  return {
    iss: (settings.iss ?? '').trim(),
    clientId: (settings.clientId ?? '').trim() || DEFAULT_SMART_CLIENT_ID,
    scope: scope || DEFAULT_SMART_SCOPES,
    clientIds: parseClientIds(settings.clientIds),
    origins: (settings.origins ?? '').split(/[\s,]+/).filter((o) => issOrigin(o) === o),
  };
}

/** The local settings (`npm start`, the tests' gateway). */
export function portalConfigFromEnv(env: Record<string, string | undefined>): PortalConfig {
  return portalConfig({ iss: env.SMART_ISS, clientId: env.SMART_CLIENT_ID, scopes: env.SMART_SCOPES, clientIds: env.SMART_CLIENT_IDS, origins: env.SMART_ORIGINS });
}

/** Reads config.json as the page receives it; anything malformed is "not configured". */
export function parsePortalConfig(value: unknown): PortalConfig | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { iss, clientId, scope, clientIds, origins } = value as Record<string, unknown>;
  if (typeof iss !== 'string' || (iss !== '' && !isWebUrl(iss)) || typeof clientId !== 'string' || !clientId || typeof scope !== 'string') return undefined;
  const pairs = Array.isArray(clientIds) ? clientIds.filter((p): p is [string, string] => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && typeof p[1] === 'string') : [];
  const extra = Array.isArray(origins) ? origins.filter((o): o is string => typeof o === 'string') : [];
  return { iss, clientId, scope, clientIds: pairs, origins: extra };
}

/** The client id to launch at a hospital with: the longest configured prefix of its FHIR base URL, else the default. */
export function clientIdFor(config: Pick<PortalConfig, 'clientId' | 'clientIds'>, fhirBaseUrl: string): string {
  let best: [string, string] | undefined;
  for (const pair of config.clientIds) if (fhirBaseUrl.startsWith(pair[0]) && (!best || pair[0].length > best[0].length)) best = pair;
  return best?.[1] ?? config.clientId;
}

/** The origin a browser connects to for `iss` (for the Content-Security-Policy); undefined when unset or not a URL. */
export function issOrigin(iss: string): string | undefined {
  try {
    const url = new URL(iss);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where the pages may connect besides their own origin: the one hospital's origin; with the picker,
 * any `https:` origin (a hospital is chosen at run time) and the configured extra origins; without
 * a configuration, nowhere.
 */
export function connectSources(config: PortalConfig | undefined): string[] {
  if (!config) return [];
  if (config.iss) return [issOrigin(config.iss)].filter((o): o is string => o !== undefined);
  return ['https:', ...config.origins];
}
