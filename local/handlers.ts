/** The very handler modules the Lambdas run, loaded by family. */
import type { Family } from '../shared/http/families';
import type { LambdaHandler } from '../shared/http/handler';
import type { Stores } from '../shared/stores';
import type { WorkerHandler } from '../functions/export-worker/handler';

/** Each family's handler; with `stores`, built on them (e.g. the in-memory twins), else on the installed ones. */
export async function loadHandlers(stores?: Stores): Promise<Record<Family, LambdaHandler>> {
  const [fhir, fhirImport, api, oauth, mcp] = await Promise.all([
    import('../functions/fhir/handler'),
    import('../functions/fhir-import/handler'),
    import('../functions/api/handler'),
    import('../functions/oauth/handler'),
    import('../functions/mcp/handler'),
  ]);
  if (!stores) return { fhir: fhir.handler, 'fhir-import': fhirImport.handler, api: api.handler, oauth: oauth.handler, mcp: mcp.handler };
  return {
    fhir: fhir.buildHandler(stores),
    'fhir-import': fhirImport.buildHandler(stores),
    api: api.buildHandler(stores),
    oauth: oauth.buildHandler(stores),
    mcp: mcp.buildHandler(stores),
  };
}

/** The export worker's handler (the worker Lambda's module); with `stores`, built on them. */
export async function loadWorker(stores?: Stores): Promise<WorkerHandler> {
  const worker = await import('../functions/export-worker/handler');
  return stores ? worker.buildWorker(stores) : worker.handler;
}
