/**
 * Folder of the compiled definitions beside a Lambda bundle. `scripts/bundle.ts` copies
 * `generated/` there; the loader looks there first, then in the source tree.
 */
export const BUNDLED_DEFINITIONS_DIR = 'fhir-r5';
