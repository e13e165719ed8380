/** Lambda of the `fhir-import` family: `POST /fhir-import/R4` (a Bundle) and `POST /fhir-import/R4/<Type>` (one resource). */
import { authenticator } from '../../shared/auth/authenticate';
import { createAuxiliaryResource } from '../../shared/auxiliary/create';
import { loadFhirPath } from '../../shared/fhir/fhirpath';
import { createHandler } from '../../shared/http/handler';
import { handlerBuilder } from '../../shared/stores';
import { importRoutes } from '../../shared/r4-import/http';

/** Every route this Lambda serves (the isolation matrix checks each has a row). */
export const routes = importRoutes({ create: createAuxiliaryResource, observation: {} });

/** This family's handler, on the given stores or the installed ones (see `handlerBuilder`). */
export const buildHandler = handlerBuilder(() => createHandler({ family: 'fhir-import', routes, authenticator }));

export const handler = buildHandler();

// Imports validate and index with FHIRPath: start loading the engine during init, not on the first write.
loadFhirPath().catch(() => undefined);
