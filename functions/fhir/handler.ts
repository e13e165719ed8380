/** Lambda of the `fhir` family: `/FHIR/R5/*` and `/fhir/r5/*`. */
import { auxiliaryTypeEntries } from '../../shared/aux/http';
import { loadFhirPath } from '../../shared/fhir/fhirpath';
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
  ...auxiliaryTypeEntries(),
]);

export const handler = createHandler({ family: 'fhir', routes: [...smartConfigurationRoutes(), ...fhirRoutes(registry)] });

// Writes validate and index with FHIRPath: start loading the engine during init, not on the first write.
loadFhirPath().catch(() => undefined);
