/**
 * The field types of `/api/v1/` bodies and query strings, as zod schemas with the service's
 * policies: bounded lengths everywhere, no control characters in any text, no markup (`<`, `>`)
 * in names and labels (no person, organization or device name needs them, and every page that
 * shows them later is then safe by construction), ids as positive integers (a numeric string is
 * accepted, as form-minded clients send them), dates as real calendar days.
 */
import { z } from 'zod';
import { parseId } from '../directory/ids';
import { ORG_ROLES } from '../directory/model';
import { dateRange } from '../fhir/search/dates';

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const LINE_BREAKS = /[\n\r\t]/;
const MARKUP = /[<>]/;

export const MAX_NAME = 150;
export const MAX_TEXT = 5000;
export const MAX_URL = 2048;
export const MAX_IDENTIFIER = 256;

/** A directory id: a positive integer, or its decimal text. */
export const id = () =>
  z.unknown().transform((value, ctx) => {
    const parsed = parseId(value);
    if (parsed === undefined) {
      ctx.addIssue({ code: 'custom', message: 'A valid integer is required.' });
      return z.NEVER;
    }
    return parsed;
  });

/** A one-line name or label: trimmed, at most `max` characters, no control characters or markup. */
export const name = (max = MAX_NAME) =>
  z
    .string()
    .trim()
    .max(max)
    .refine((s) => !CONTROL.test(s) && !LINE_BREAKS.test(s), 'Must not contain control characters or line breaks.')
    .refine((s) => !MARKUP.test(s), 'Must not contain < or >.');

/** A name that must not be blank. */
export const requiredName = (max = MAX_NAME) => name(max).pipe(z.string().min(1));

/** Markup: a `<` that opens a tag, comment or declaration (`BP < 140` is fine). */
const TAG = /<[A-Za-z!/?]/;

/** Free text (a description): line breaks allowed, other control characters and markup not. */
export const text = (max = MAX_TEXT) =>
  z
    .string()
    .max(max)
    .refine((s) => !CONTROL.test(s), 'Must not contain control characters.')
    .refine((s) => !TAG.test(s), 'Must not contain markup.');

export const email = () => z.string().trim().max(254).pipe(z.email());

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A calendar date `YYYY-MM-DD` that exists (no 2023-02-30), from the year 1 on. */
export const date = () =>
  z
    .string()
    .refine((s) => DAY.test(s) && !s.startsWith('0000') && dateRange(s) !== undefined, 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.');

/** An absolute http(s) URL. */
export const url = () =>
  z
    .string()
    .trim()
    .max(MAX_URL)
    .refine((s) => {
      if (/\s/.test(s) || CONTROL.test(s)) return false;
      try {
        const parsed = new URL(s);
        return (parsed.protocol === 'https:' || parsed.protocol === 'http:') && parsed.hostname.length > 0;
      } catch {
        return false;
      }
    }, 'Enter a valid URL.');

/** An absolute http(s) URL, or empty. */
export const optionalUrl = () => z.union([z.literal(''), url()]);

/** An absolute URI: a scheme, then characters a URI may hold (no spaces, quotes or angle brackets). */
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|\\^`\u0000-\u001f\u007f]+$/;

/**
 * An identifier system: an absolute URI (FHIR `Identifier.system`); the portal stores the upstream
 * server's base address here.
 */
export const identifierSystem = () =>
  z
    .string()
    .trim()
    .min(1)
    .max(MAX_IDENTIFIER)
    .refine((s) => URI.test(s), 'Enter a valid URI.');

/** An identifier value: one line of text without markup. */
export const identifierValue = () =>
  z
    .string()
    .trim()
    .min(1)
    .max(MAX_IDENTIFIER)
    .refine((s) => !CONTROL.test(s) && !LINE_BREAKS.test(s), 'Must not contain control characters or line breaks.')
    .refine((s) => !MARKUP.test(s), 'Must not contain < or >.');

export const identifier = () => z.strictObject({ system: identifierSystem(), value: identifierValue() });

/** At most this many identifiers per patient (each is a uniqueness claim in the same transaction). */
export const MAX_IDENTIFIERS = 20;
export const identifiers = () => z.array(identifier()).max(MAX_IDENTIFIERS);

/** A list of ids (e.g. `patient_ids`), at least one, bounded. */
export const ids = (max = 1000) => z.array(id()).min(1).max(max);

/** A phone number as people write it: digits, `+`, spaces, dashes, dots and parentheses. */
export const phone = () =>
  z
    .string()
    .trim()
    .refine((s) => /^[0-9+(). -]{3,40}$/.test(s) && /[0-9]/.test(s), 'Enter a valid phone number.');

/** An organization role. */
export const role = () => z.enum(ORG_ROLES);
