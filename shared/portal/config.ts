/**
 * The patient portal's launch configuration (spec 4.8.3): which SMART on FHIR server it connects
 * to (`iss`), as which public client, with which scopes. It comes from the deployment's settings
 * (locally `SMART_ISS`, `SMART_CLIENT_ID`, `SMART_SCOPES`; on AWS the CDK context `smartIss`,
 * `smartClientId`, `smartScopes`) and reaches the pages as `/clients/portal/config.json`, written
 * by the local gateway or deployed next to the pages by the stack.
 */

export interface PortalConfig {
  /** FHIR base URL of the hospital's SMART server; empty when the deployment has none. */
  iss: string;
  clientId: string;
  /** Space-separated scopes. */
  scope: string;
}

/** The spec's scope list (4.8.3). */
export const DEFAULT_SMART_SCOPES = 'openid profile launch/patient patient/Patient.read patient/Observation.read';
export const DEFAULT_SMART_CLIENT_ID = 'cdx-portal';

/** Where the configuration is served, relative to the site root. */
export const PORTAL_CONFIG_FILE = 'clients/portal/config.json';
export const PORTAL_PATH = '/clients/portal/';
/** The redirect URI to register with the hospital: `<origin>/clients/portal/callback`, byte for byte. */
export const PORTAL_CALLBACK_PATH = '/clients/portal/callback';

export interface PortalSettings {
  iss?: string | undefined;
  clientId?: string | undefined;
  scopes?: string | undefined;
}

/** The configuration from settings; blanks take the defaults, the scope list is normalised to single spaces. */
export function portalConfig(settings: PortalSettings): PortalConfig {
  const scope = (settings.scopes ?? '').trim().split(/\s+/).filter(Boolean).join(' ');
  return {
    iss: (settings.iss ?? '').trim(),
    clientId: (settings.clientId ?? '').trim() || DEFAULT_SMART_CLIENT_ID,
    scope: scope || DEFAULT_SMART_SCOPES,
  };
}

/** The local settings (`npm start`, the tests' gateway). */
export function portalConfigFromEnv(env: Record<string, string | undefined>): PortalConfig {
  return portalConfig({ iss: env.SMART_ISS, clientId: env.SMART_CLIENT_ID, scopes: env.SMART_SCOPES });
}

/** Reads config.json as the page receives it; anything malformed is "not configured". */
export function parsePortalConfig(value: unknown): PortalConfig | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { iss, clientId, scope } = value as Record<string, unknown>;
  if (typeof iss !== 'string' || !/^https?:\/\//.test(iss) || typeof clientId !== 'string' || !clientId || typeof scope !== 'string') return undefined;
  return { iss, clientId, scope };
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
