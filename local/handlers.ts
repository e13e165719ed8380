/** The very handler modules the Lambdas run, loaded by family. */
import type { Family } from '../shared/http/families';
import type { LambdaHandler } from '../shared/http/handler';

export async function loadHandlers(): Promise<Record<Family, LambdaHandler>> {
  const [fhir, fhirImport, api, oauth] = await Promise.all([
    import('../functions/fhir/handler'),
    import('../functions/fhir-import/handler'),
    import('../functions/api/handler'),
    import('../functions/oauth/handler'),
  ]);
  return { fhir: fhir.handler, 'fhir-import': fhirImport.handler, api: api.handler, oauth: oauth.handler };
}
