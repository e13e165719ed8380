/**
 * The auxiliary resource store (docs/api.md#auxiliary-resources): every FHIR resource that is not a
 * mobile-health Observation nor one of the service's own projections, stored as submitted
 * through a patient's FHIR Source, searchable by every R5 search parameter of its type.
 */
export { AUXILIARY_TYPES, isAuxiliaryType, type AuxiliaryType } from './accepted-types';
export { createAuxiliaryResource } from './create';
export type { AuxiliaryCreateRequest, AuxiliaryCreateResult, CreateAuxiliaryResource } from './types';
export { readAuxiliary, type AuxiliaryReadResult } from './read';
export { searchAuxiliary, type SearchsetBundle } from './search';
export { createAuxiliary, updateAuxiliary, patchAuxiliary, deleteAuxiliary, type AuxiliaryWriteContext } from './writes';
export { deleteAuxiliaryRowsOfSource, deleteAuxiliaryRowsOfPatient, type AuxiliaryDeletion } from './cleanup';
export { auxiliaryHandlers, auxiliarySearchParams, auxiliaryTypeEntries, auxiliaryTypeEntry } from './http';
