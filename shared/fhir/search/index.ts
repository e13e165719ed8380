/**
 * Search primitives over the R5 search parameters, shared by the auxiliary store and the native
 * Observation search: extraction of index values at write time (`extractSearchIndex`), parsing a
 * query into typed criteria (`parseSearch`), matching (`matchesAll`) and sorting (`parseSort`,
 * `compareBySort`).
 */
export * from './criteria';
export * from './dates';
export * from './index-values';
export { extractSearchIndex, extractWith, extractableParams, referenceValue, type ExtractionOptions } from './extract';
export { matchesAll, matchesCriterion } from './match';
export { findSearchParam, parseSearch, rejectUnknown, RESULT_PARAMETERS } from './parse';
export { compareBySort, compareSortKeys, parseSort, sortKey } from './sort';
export { normaliseText } from './text';
export { searchParamCapabilities } from './capability';
