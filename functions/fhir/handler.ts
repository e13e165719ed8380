/** Lambda of the `fhir` family: `/FHIR/R5/*` and `/fhir/r5/*`. */
import { deviceEntry, groupEntry, organizationEntry, patientEntry, practitionerEntry } from '../../shared/fhir/projections/entries';
import { createRegistry } from '../../shared/fhir/registry';
import { fhirRoutes } from '../../shared/fhir/router';
import { createHandler } from '../../shared/http/handler';

export const registry = createRegistry([
  patientEntry,
  practitionerEntry,
  organizationEntry,
  groupEntry,
  deviceEntry,
]);

export const handler = createHandler({ family: 'fhir', routes: fhirRoutes(registry) });
