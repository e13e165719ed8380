/** Lambda of the `fhir` family: `/FHIR/R5/*` and `/fhir/r5/*`. */
import { deviceEntry, groupEntry, organizationEntry, patientEntry, practitionerEntry } from '../../shared/fhir/projections/entries';
import { createRegistry } from '../../shared/fhir/registry';
import { fhirRoutes } from '../../shared/fhir/router';
import { createHandler } from '../../shared/http/handler';
import { smartConfigurationRoutes } from '../../shared/oauth/fhir-base-discovery';

export const registry = createRegistry([
  patientEntry,
  practitionerEntry,
  organizationEntry,
  groupEntry,
  deviceEntry,
]);

export const handler = createHandler({ family: 'fhir', routes: [...smartConfigurationRoutes(), ...fhirRoutes(registry)] });
