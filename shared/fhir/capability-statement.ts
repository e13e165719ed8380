/** The R5 CapabilityStatement, generated from the registry the FHIR router dispatches with. */
import { config } from '../config';
import { OAUTH_PATHS } from '../http/families';
import { FHIR_VERSION } from './constants';
import { interactionsOf, type FhirOperation, type FhirRegistry } from './registry';

/** `rest.operation` / `rest.resource.operation` entries (one per name). */
function operationsOf(operations: readonly FhirOperation[]) {
  const byName = new Map(operations.map((op) => [op.name, op]));
  return [...byName.values()].map((op) => ({ name: op.name, definition: op.definition, ...(op.documentation ? { documentation: op.documentation } : {}) }));
}

/** Parameters every search accepts, whatever the type (FHIR's common and result parameters). */
const COMMON_SEARCH_PARAMS = [
  { name: '_id', type: 'token', documentation: 'Logical id of the resource.' },
  { name: '_lastUpdated', type: 'date', documentation: 'When the resource last changed.' },
] as const;

export function capabilityStatement(registry: FhirRegistry, baseUrl: string): Record<string, unknown> {
  const resources = [...registry.types.values()]
    .sort((a, b) => a.type.localeCompare(b.type))
    .map((entry) => {
      const own = entry.searchParams();
      const ownNames = new Set(own.map((p) => p.name));
      const searchParam = [...COMMON_SEARCH_PARAMS.filter((p) => !ownNames.has(p.name)), ...own].map((p) => ({ ...p }));
      const interactions = interactionsOf(entry);
      const operation = operationsOf(registry.operations.filter((op) => op.level !== 'system' && op.type === entry.type));
      return {
        type: entry.type,
        ...(entry.documentation ? { documentation: entry.documentation } : {}),
        interaction: interactions.map((code) => ({ code })),
        ...(interactions.includes('update') ? { updateCreate: false } : {}),
        ...(interactions.includes('search-type') ? { searchParam } : {}),
        ...(operation.length > 0 ? { operation } : {}),
      };
    });
  const systemInteractions = registry.batch ? [{ code: 'batch' }] : [];
  const systemOperations = operationsOf(registry.operations.filter((op) => op.level === 'system'));
  return {
    resourceType: 'CapabilityStatement',
    status: 'active',
    date: new Date().toISOString().slice(0, 10),
    publisher: 'Clinical Data Exchange',
    kind: 'instance',
    ...(registry.instantiates.length > 0 ? { instantiates: [...registry.instantiates] } : {}),
    software: { name: 'Clinical Data Exchange', version: config().release },
    implementation: { description: 'Clinical data exchange FHIR R5 server', url: baseUrl },
    fhirVersion: FHIR_VERSION,
    format: ['json', 'application/fhir+json'],
    rest: [
      {
        mode: 'server',
        security: {
          // SMART App Launch: where clients get tokens for this server.
          extension: [
            {
              url: 'http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris',
              extension: [
                { url: 'authorize', valueUri: `${config().siteUrl}${OAUTH_PATHS.authorize}` },
                { url: 'token', valueUri: `${config().siteUrl}${OAUTH_PATHS.token}` },
                { url: 'revoke', valueUri: `${config().siteUrl}${OAUTH_PATHS.revoke}` },
              ],
            },
          ],
          cors: false,
          service: [
            {
              coding: [{ system: 'http://hl7.org/fhir/restful-security-service', code: 'SMART-on-FHIR' }],
            },
          ],
          description: 'OAuth 2.0 bearer tokens issued by this service at /o/token/.',
        },
        resource: resources,
        ...(systemInteractions.length > 0 ? { interaction: systemInteractions } : {}),
        ...(systemOperations.length > 0 ? { operation: systemOperations } : {}),
      },
    ],
  };
}
