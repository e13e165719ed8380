/**
 * The argument types the assistants' tools share, as zod schemas: each bounded (ids in the safe
 * integer range, every text with a length limit and a pattern where it has a syntax), so a hostile
 * argument is refused by the schema, as a tool error, before any store is read. Descriptions are
 * written for a model and hold no text that came from a record.
 */
import * as z from 'zod';

/** A directory id: the numbers the service gives patients and studies. */
const id = (what: string) => z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).describe(what);

export const patientIdField = id('The patient id (a number, as list_study_patients or get_patient show it).');
export const optionalPatientIdField = patientIdField.optional().describe('The patient id; a signed-in patient may leave it out to mean themselves.');
export const studyIdField = id('The study id (a number, as list_studies shows it).');

/** Longest cursor text accepted: far above any cursor a tool writes, far below harm. */
export const MAX_CURSOR_LENGTH = 1024;
export const cursorField = z
  .string()
  .min(1)
  .max(MAX_CURSOR_LENGTH)
  .regex(/^[A-Za-z0-9_-]+$/)
  .optional()
  .describe('Leave out for the first page; to continue, pass the nextCursor of the previous answer with the same other arguments.');

/** A FHIR date or dateTime: `2025`, `2025-06`, `2025-06-30`, `2025-06-30T08:00:00Z`, `2025-06-30T08:00:00.000+02:00`. */
const FHIR_DATE = /^\d{4}(-\d{2}(-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?)?)?$/;
const date = (what: string) => z.string().max(35).regex(FHIR_DATE, 'a date (2025-06-30) or a dateTime with a time zone (2025-06-30T08:00:00Z)').describe(what);
export const fromField = date('Start of the period, inclusive: a date (2025-06-01, 2025-06, 2025) covers from its first instant, or a dateTime with a time zone (2025-06-01T08:00:00Z).').optional();
export const toField = date('End of the period, inclusive: a date covers up to its last instant (2025-06-30 ends at the end of that day), or a dateTime with a time zone.').optional();

/** A reading type as a model may name it (resolved by ./reading-types.ts). */
export const readingTypeField = z
  .string()
  .min(1)
  .max(120)
  .describe(
    'A reading type: its Open mHealth code (omh:heart-rate:2.0), the code without version (omh:heart-rate), its name alone when only one schema has it (heart-rate), or its standard coding (http://loinc.org|8867-4). get_omh_schema and the omh://schema/ resources list them.',
  );

/** How many items a page holds: from 1 to `max`, `fallback` when left out. */
export const pageSizeField = (fallback: number, max: number) =>
  z.number().int().min(1).max(max).optional().describe(`How many items at most in this answer (1 to ${max}; ${fallback} when left out).`);
