/**
 * The SMART standalone patient launch at a hospital (fhirclient): the client id registered there,
 * the scopes asked for, the one redirect URI registered for the portal (the callback page), PKCE
 * S256 required. The import asks the read scopes of the configuration, "Send to my hospital" the
 * CGM guide's write scopes (SEND_SCOPES).
 */
import FHIR from 'fhirclient';
import { clientIdFor, PORTAL_CALLBACK_PATH, type PortalConfig } from '../../shared/portal/config';
import { fail, setStatus } from './page';
import { keepChosenHospital, type ChosenHospital } from './session';

/** Starts the launch; a hospital chosen by name (the picker's) is kept for the pages after it. */
export async function launch(config: PortalConfig, hospital: ChosenHospital | { fhirBaseUrl: string }, scope = config.scope): Promise<void> {
  if ('name' in hospital) keepChosenHospital(hospital);
  setStatus('Opening the sign-in page of your hospital…');
  try {
    await FHIR.oauth2.authorize({
      iss: hospital.fhirBaseUrl,
      clientId: clientIdFor(config, hospital.fhirBaseUrl),
      scope,
      redirectUri: `${location.origin}${PORTAL_CALLBACK_PATH}`,
      pkceMode: 'required',
    });
  } catch (e) {
    // Discovery failed (fhirclient reports the network error inside its own message), or the
    // server answered but offers no S256 PKCE.
    fail(e, e instanceof TypeError || /TypeError|Failed to fetch/.test(String(e)) ? 'hospital-unreachable' : 'hospital-error');
  }
}
