/**
 * What the browser tests of the sign-in pages stand on: the local gateway as the site, headless
 * Chromium, the service's own clients, and a practitioner who signs in with a password.
 */
import type { Browser } from 'playwright-core';
import type { Gateway } from '../../local/gateway';
import { hashPassword } from '../../shared/auth/passwords';
import { resetConfig } from '../../shared/config';
import type { Practitioner } from '../../shared/directory/model';
import { ensureServiceClients } from '../../shared/oauth/service-clients';
import { launchBrowser } from './browser';
import { makeOrganization, makePractitioner } from './directory';
import { startTestGateway } from './gateway';

export interface SignInWorld {
  gateway: Gateway;
  browser: Browser;
  doctor: Practitioner;
  close(): Promise<void>;
}

export async function signInWorld(password: string): Promise<SignInWorld> {
  const [gateway, browser] = await Promise.all([startTestGateway(), launchBrowser()]);
  process.env.SITE_URL = gateway.url;
  resetConfig();
  await ensureServiceClients();
  const doctor = await makePractitioner({ organizations: [await makeOrganization()], passwordHash: await hashPassword(password) });
  return {
    gateway,
    browser,
    doctor,
    close: async () => {
      delete process.env.SITE_URL;
      resetConfig();
      await browser.close();
      await gateway.close();
    },
  };
}
