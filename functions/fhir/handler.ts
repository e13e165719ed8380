/** Lambda of the `fhir` family: `/FHIR/R5/*` and `/fhir/r5/*`. */
import { authenticator } from '../../shared/auth/authenticate';
import { createAuxiliaryResource } from '../../shared/auxiliary/create';
import { auxiliaryHandlers, auxiliaryTypeEntries, auxiliaryTypeEntry } from '../../shared/auxiliary/http';
import { loadFhirPath } from '../../shared/fhir/fhirpath';
import { groupEntry, organizationEntry, patientEntry, practitionerEntry } from '../../shared/fhir/projections/entries';
import { deviceEntry } from '../../shared/fhir/projections/device-entry';
import { BULK_DATA_CAPABILITY, exportJobRoutes, exportOperations } from '../../shared/export/http';
import { createRegistry } from '../../shared/fhir/registry';
import { fhirRoutes } from '../../shared/fhir/router';
import { createHandler } from '../../shared/http/handler';
import { handlerBuilder } from '../../shared/stores';
import { lastnOperation, observationEndpoints } from '../../shared/observations/http';
import { cgmReportOperation, cgmSummaryOperation, studyCgmSummaryOperation } from '../../shared/observations/cgm/http';
import { statsOperations } from '../../shared/observations/stats/http';
import { smartConfigurationRoutes } from '../../shared/oauth/fhir-base-discovery';

/** Mobile-health Observations natively; other Observations (and UUID ids, `_source` searches) in the auxiliary store. */
const observations = observationEndpoints({ create: createAuxiliaryResource, observation: auxiliaryHandlers('Observation') });

export const registry = createRegistry(
  [
    patientEntry,
    practitionerEntry,
    organizationEntry,
    groupEntry,
    // Data sources (numeric ids) and the Devices FHIR Sources send (UUID ids, in the auxiliary store).
    deviceEntry(auxiliaryTypeEntry('Device')),
    ...auxiliaryTypeEntries(),
    observations.entry,
  ],
  { batch: observations.batch, operations: [...exportOperations, ...statsOperations, lastnOperation, cgmSummaryOperation, cgmReportOperation, studyCgmSummaryOperation], instantiates: [BULK_DATA_CAPABILITY] },
);

/** Every route this Lambda serves (the isolation matrix checks each has a row). */
export const routes = [...smartConfigurationRoutes(), ...fhirRoutes(registry), ...exportJobRoutes()];

/** This family's handler, on the given stores or the installed ones (see `handlerBuilder`). */
export const buildHandler = handlerBuilder(() => createHandler({ family: 'fhir', routes, authenticator }));

export const handler = buildHandler();

// Writes validate and index with FHIRPath: start loading the engine during init, not on the first write.
loadFhirPath().catch(() => undefined);
