/**
 * `SMART_FIXTURE=1 npm start` (or `SMART_FIXTURE=R5`): runs the tests' SMART on FHIR fixture
 * (`test/fixtures/smart-server.ts`) beside the service, points the portal at it, and gives the
 * demo patient without a login a fresh invitation, so the whole patient portal flow can be tried
 * in a browser. Development only: nothing of it is deployed.
 */
import { portalConfig, PORTAL_CALLBACK_PATH, type PortalConfig } from '../shared/portal/config';
import { inviteDemoPatient } from './demo-oauth';

export interface LocalSmartFixture {
  portal: PortalConfig;
  /** Once the service runs: registers its callback and returns the banner lines. */
  ready(siteUrl: string): Promise<string[]>;
  close(): Promise<void>;
}

/** The fixture when `SMART_FIXTURE` asks for one (`1`, `R4` or `R5`), else undefined. */
export async function startLocalSmartFixture(setting: string | undefined): Promise<LocalSmartFixture | undefined> {
  if (!setting || setting === '0') return undefined;
  const mode = setting.toUpperCase() === 'R5' ? 'R5' : 'R4';
  const { startSmartFixture } = await import('../test/fixtures/smart-server');
  const fixture = await startSmartFixture({ mode, count: Number(process.env.SMART_FIXTURE_COUNT ?? 25), pageSize: 10 });
  return {
    portal: portalConfig({ iss: fixture.iss, clientId: fixture.clientId, scopes: process.env.SMART_SCOPES }),
    ready: async (siteUrl) => {
      fixture.redirectUri = `${siteUrl}${PORTAL_CALLBACK_PATH}`;
      const invited = await inviteDemoPatient();
      return [
        `  SMART fixture  ${mode} hospital at ${fixture.iss} (patient ${fixture.patientId}, ${fixture.observations.length} lab results)`,
        ...(invited
          ? [`  Try the portal as Patient/${invited.patient.id} (${invited.patient.nameGiven} ${invited.patient.nameFamily}), then press Allow:`, `                 ${invited.issued.invitationLink}`]
          : []),
      ];
    },
    close: () => fixture.close(),
  };
}
