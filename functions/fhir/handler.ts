/** Lambda of the `fhir` family: `/FHIR/R5/*` and `/fhir/r5/*`. */
import { createRegistry } from '../../shared/fhir/registry';
import { fhirRoutes } from '../../shared/fhir/router';
import { createHandler } from '../../shared/http/handler';
import { observationEndpoints } from '../../shared/observations/http';

const observations = observationEndpoints();

export const registry = createRegistry([observations.entry], observations.batch);

export const handler = createHandler({ family: 'fhir', routes: fhirRoutes(registry) });
