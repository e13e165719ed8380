/**
 * The field types of `/api/v1/` bodies and query strings, as zod schemas with the service's
 * policies: bounded lengths everywhere, no control characters in any text, no markup in names,
 * labels, identifiers and descriptions (no person, organization or device name needs it, and every
 * page that shows them later is then safe by construction), ids as positive integers (a numeric
 * string is accepted, as form-minded clients send them), dates as real calendar days.
 *
 * Built on `zod/mini`, the tree-shakable build of zod: the Lambda bundle carries only the schema
 * kinds used here (about 25 KB instead of 440 KB for the whole library). Route modules compose
 * these helpers and never import zod themselves.
 */
import * as z from 'zod/mini';
import { parseId } from '../directory/ids';
import { ORG_ROLES } from '../directory/model';
import { dateRange } from '../fhir/search/dates';

export type Schema = z.ZodMiniType;
export type ObjectSchema = z.ZodMiniObject;
export type Output<S extends Schema> = z.output<S>;
export type Issue = z.core.$ZodIssue;

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const LINE_BREAKS = /[\n\r\t]/;
const MARKUP = /[<>]/;
/** Markup in free text: a `<` that opens a tag, comment or declaration (`BP < 140` is fine). */
const TAG = /<[A-Za-z!/?]/;

export const MAX_NAME = 150;
export const MAX_TEXT = 5000;
export const MAX_URL = 2048;
export const MAX_IDENTIFIER = 256;

// --- composition ---------------------------------------------------------------------------------

/** An object that refuses unknown keys. */
export const strict = <T extends z.core.$ZodLooseShape>(shape: T) => z.strictObject(shape);
export const optional = <T extends Schema>(schema: T) => z.optional(schema);
export const nullable = <T extends Schema>(schema: T) => z.nullable(schema);
export const extend = <T extends ObjectSchema, U extends z.core.$ZodLooseShape>(schema: T, shape: U) => z.extend(schema, shape);
export const choice = <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values);
export const bool = () => z.boolean();
/** A list of `min` to `max` items. */
export const list = <T extends Schema>(item: T, min: number, max: number) => z.array(item).check(z.minLength(min), z.maxLength(max));

export function safeParse<S extends Schema>(schema: S, input: unknown): { success: true; data: Output<S> } | { success: false; issues: Issue[] } {
  const result = z.safeParse(schema, input);
  return result.success ? { success: true, data: result.data } : { success: false, issues: result.error.issues };
}

// --- field kinds -----------------------------------------------------------------------------------

/** A directory id: a positive integer, or its decimal text. */
export const id = () =>
  z.pipe(
    z.unknown(),
    z.transform((value, ctx) => {
      const parsed = parseId(value);
      if (parsed === undefined) {
        const message = value === null ? 'This field may not be null.' : 'A valid integer is required.';
        ctx.issues.push({ code: 'custom', message, input: value });
        return z.NEVER;
      }
      return parsed;
    }),
  );

const oneLine = z.refine<string>((s) => !CONTROL.test(s) && !LINE_BREAKS.test(s), 'Must not contain control characters or line breaks.');
const noMarkup = z.refine<string>((s) => !MARKUP.test(s), 'Must not contain < or >.');

/** A one-line name or label: trimmed, at most `max` characters, no control characters or markup. */
export const name = (max = MAX_NAME) => z.string().check(z.trim(), z.maxLength(max), oneLine, noMarkup);

/** A name that must not be blank. */
export const requiredName = (max = MAX_NAME) => z.string().check(z.trim(), z.minLength(1), z.maxLength(max), oneLine, noMarkup);

/** Free text (a description): line breaks allowed, other control characters and markup not. */
export const text = (max = MAX_TEXT) =>
  z.string().check(
    z.maxLength(max),
    z.refine((s) => !CONTROL.test(s), 'Must not contain control characters.'),
    z.refine((s) => !TAG.test(s), 'Must not contain markup.'),
  );

/** A string of `min` to `max` characters, taken as it is (a password, a code). */
export const plain = (min: number, max: number) => z.string().check(z.minLength(min), z.maxLength(max));

export const email = () => z.pipe(z.string().check(z.trim(), z.maxLength(254)), z.email());

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A calendar date `YYYY-MM-DD` that exists (no 2023-02-30), from the year 1 on. */
export const date = () =>
  z.string().check(
    z.refine((s) => DAY.test(s) && !s.startsWith('0000') && dateRange(s) !== undefined, 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.'),
  );

function isWebUrl(s: string): boolean {
  if (/\s/.test(s) || CONTROL.test(s)) return false;
  try {
    const parsed = new URL(s);
    return (parsed.protocol === 'https:' || parsed.protocol === 'http:') && parsed.hostname.length > 0;
  } catch {
    return false;
  }
}

/** An absolute http(s) URL. */
export const url = () => z.string().check(z.trim(), z.maxLength(MAX_URL), z.refine(isWebUrl, 'Enter a valid URL.'));

/** An absolute http(s) URL, or empty. */
export const optionalUrl = () => z.string().check(z.trim(), z.maxLength(MAX_URL), z.refine((s) => s === '' || isWebUrl(s), 'Enter a valid URL.'));

/** An absolute URI: a scheme, then characters a URI may hold (no spaces, quotes or angle brackets). */
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|\\^`\u0000-\u001f\u007f]+$/;

/**
 * An identifier system: an absolute URI (FHIR `Identifier.system`); the portal stores the upstream
 * server's base address here.
 */
export const identifierSystem = () => z.string().check(z.trim(), z.minLength(1), z.maxLength(MAX_IDENTIFIER), z.refine((s) => URI.test(s), 'Enter a valid URI.'));

/** An identifier value: one line of text without markup. */
export const identifierValue = () => z.string().check(z.trim(), z.minLength(1), z.maxLength(MAX_IDENTIFIER), oneLine, noMarkup);

export const identifier = () => strict({ system: identifierSystem(), value: identifierValue() });

/** At most this many identifiers per patient (each is a uniqueness claim in the same transaction). */
export const MAX_IDENTIFIERS = 20;
export const identifiers = () => list(identifier(), 0, MAX_IDENTIFIERS);

/** A list of ids (e.g. `patient_ids`), at least one, bounded. */
export const ids = (max = 1000) => list(id(), 1, max);

/** A phone number as people write it: digits, `+`, spaces, dashes, dots and parentheses. */
export const phone = () => z.string().check(z.trim(), z.refine((s) => /^[0-9+(). -]{3,40}$/.test(s) && /[0-9]/.test(s), 'Enter a valid phone number.'));

/** An organization role. */
export const role = () => choice(ORG_ROLES);
