/** SMART clients look for the configuration under the FHIR base (`[base]/.well-known/smart-configuration`). */
import { FHIR_BASES } from '../http/families';
import { corsRoutes } from '../http/cors';
import { json } from '../http/response';
import type { Route } from '../http/router';
import { DISCOVERY_CACHE, smartConfiguration } from './discovery';

export function smartConfigurationRoutes(): Route[] {
  return FHIR_BASES.flatMap((base) =>
    corsRoutes(`${base}/.well-known/smart-configuration`, { GET: { auth: 'none', handler: async () => json(200, smartConfiguration(), DISCOVERY_CACHE) } }),
  );
}
