/**
 * The SMART standalone patient launch at a hospital (fhirclient): the client id registered there,
 * the scopes asked for, the one redirect URI registered for the portal (the callback page), PKCE
 * S256 required. The import asks the read scopes of the configuration, "Send to my hospital" the
 * CGM guide's write scopes in the syntax the hospital declares (shared/portal/send-scopes.ts).
 */
import FHIR from 'fhirclient';
import { fetchWellKnownJson } from 'fhirclient/lib/smart';
import { clientIdFor, PORTAL_CALLBACK_PATH, type PortalConfig } from '../../shared/portal/config';
import { fail, setStatus } from './page';
import { keepChosenHospital, type ChosenHospital } from './session';

/**
 * Starts the launch; a hospital chosen by name (the picker's) is kept for the pages after it. The
 * scopes are a list, or chosen from the hospital's discovery document (undefined when unreadable).
 */
export async function launch(config: PortalConfig, hospital: ChosenHospital | { fhirBaseUrl: string }, scope: string | ((discovery: unknown) => string) = config.scope): Promise<void> {
  if ('name' in hospital) keepChosenHospital(hospital);
  setStatus('Opening the sign-in page of your hospital…');
  try {
    await FHIR.oauth2.authorize({
      iss: hospital.fhirBaseUrl,
      clientId: clientIdFor(config, hospital.fhirBaseUrl),
      scope: typeof scope === 'string' ? scope : scope(await smartConfiguration(hospital.fhirBaseUrl)),
      redirectUri: `${location.origin}${PORTAL_CALLBACK_PATH}`,
      pkceMode: 'required',
    });
  } catch (e) {
    // Discovery failed (fhirclient reports the network error inside its own message), or the
    // server answered but offers no S256 PKCE.
    fail(e, e instanceof TypeError || /TypeError|Failed to fetch/.test(String(e)) ? 'hospital-unreachable' : 'hospital-error');
  }
}

/**
 * The hospital's SMART discovery document (`{iss}/.well-known/smart-configuration`), undefined when
 * it cannot be read. fhirclient keeps what it fetched for the page's lifetime, keyed by URL, and
 * its launch reads the same document from there: the hospital is asked once.
 */
function smartConfiguration(fhirBaseUrl: string): Promise<unknown> {
  return fetchWellKnownJson(fhirBaseUrl).catch(() => undefined);
}
