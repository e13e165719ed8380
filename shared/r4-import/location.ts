/**
 * Folder of the compiled conversion tables beside a Lambda bundle. `scripts/bundle.ts` copies
 * `generated/` there; the loader looks there first, then in the source tree.
 */
export const BUNDLED_CONVERSION_DIR = 'fhir-r4';
