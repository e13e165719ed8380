/**
 * The JSON Schema `format`s the payload schemas declare, checked (the policies are in
 * docs/payloads.md):
 * - `date-time`: strict RFC 3339 with an offset, and a real calendar instant;
 * - `date` of a time interval (a pattern in the schema): also a real calendar day;
 * - `uuid`: the 8-4-4-4-12 hex shape only, without RFC 4122 version or variant checks;
 * - `iri`: an IRI reference (relative ones such as `iHealth` included), so only text that cannot be
 *   part of any IRI is refused.
 */
import { parseDateTime, parseFullDate } from '../datetime';
import { formatted } from './validate';

export const dateTime = formatted((text) => {
  const parsed = parseDateTime(text);
  return typeof parsed === 'string' ? parsed : undefined;
});

export const fullDate = formatted((text) => {
  const parsed = parseFullDate(text);
  return typeof parsed === 'string' ? parsed : undefined;
});

const UUID_SHAPE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export const uuid = formatted((text) =>
  UUID_SHAPE.test(text) ? undefined : 'must be a UUID (32 hex digits as 8-4-4-4-12)',
);

/**
 * RFC 3987 leaves these out of every IRI: controls, space, `<>"{}|\^` and backtick, and a `%`
 * not followed by two hex digits.
 */
const NOT_IRI = /[\u0000-\u0020\u007f-\u009f<>"{}|\\^`]|%(?![0-9A-Fa-f]{2})/;

export const iri = formatted((text) => {
  if (text.length === 0) return 'must not be empty';
  return NOT_IRI.test(text) ? 'must be an IRI (no spaces, control characters, <>"{}|\\^` or stray %)' : undefined;
});
