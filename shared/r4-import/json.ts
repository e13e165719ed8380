/** Parsed JSON as the import reads it: one object test for the whole folder. */

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
