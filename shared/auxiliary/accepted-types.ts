/**
 * THE configured list of auxiliary resource types: what `POST /FHIR/R5/<Type>` stores, what the
 * FHIR router serves from the auxiliary store, and what the CapabilityStatement lists for it.
 * Any other type is a 404 OperationOutcome.
 *
 * Patient, Practitioner, Organization and Group are deliberately absent: they are read-only
 * projections of the service's own entities (docs/api.md#read-only-fhir-projections), managed through `/api/v1/`.
 * Device is both: the data sources are a projection (numeric ids), and a Device a FHIR Source sends
 * (a CGM sensor in a data submission, with its serial number) is stored here (UUID ids).
 */

export const AUXILIARY_TYPES = [
  'AllergyIntolerance',
  'CarePlan',
  'CareTeam',
  'Condition',
  'Coverage',
  // Only Devices sent through a FHIR Source; the data sources are the Device projection's.
  'Device',
  'DiagnosticReport',
  'DocumentReference',
  'Encounter',
  'FamilyMemberHistory',
  'Goal',
  'Immunization',
  'Location',
  'Medication',
  'MedicationDispense',
  'MedicationRequest',
  // Only Observations that are not mobile-health coded; the native store routes them here.
  'Observation',
  'PractitionerRole',
  'Procedure',
  'Provenance',
  'QuestionnaireResponse',
  'RelatedPerson',
  'ServiceRequest',
  'Specimen',
] as const;

export type AuxiliaryType = (typeof AUXILIARY_TYPES)[number];

const accepted: ReadonlySet<string> = new Set(AUXILIARY_TYPES);

export function isAuxiliaryType(type: string): type is AuxiliaryType {
  return accepted.has(type);
}

/**
 * Types whose registry entry another part owns, which calls this store for the rest: the native
 * Observation store, and the Device projection (`shared/fhir/two-stores.ts` decides which store a request is for).
 */
export const NATIVE_SHARED_TYPES: ReadonlySet<AuxiliaryType> = new Set(['Observation', 'Device']);

/** The read-only projections of the service's own entities: never written through FHIR (Device: its numeric ids). */
export const PROJECTION_TYPES: ReadonlySet<string> = new Set(['Patient', 'Practitioner', 'Organization', 'Group', 'Device']);
