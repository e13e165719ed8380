/**
 * The lexical level of search values: escaping (`\,` `\|` `\$` `\\`), prefixes, numbers with
 * their implied precision, and date values.
 */
import { badRequest } from '../../http/errors';
import { PREFIXES, type DateQuery, type NumberQuery, type Prefix } from './criteria';
import { dateRange } from './dates';

/** Splits at unescaped `separator`; escapes stay in the parts (unescape each part last). */
export function splitUnescaped(value: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    if (value[i] === '\\') i++;
    else if (value[i] === separator) {
      parts.push(value.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(value.slice(start));
  return parts;
}

export function unescapeValue(value: string): string {
  return value.replace(/\\([\\,|$])/g, '$1');
}

const PREFIX_SET = new Set<string>(PREFIXES);

/** Splits a leading prefix (`ge2020`, `lt5.4`); no prefix means `eq`. Values never start with letters. */
export function splitPrefix(value: string, paramName: string): { prefix: Prefix; rest: string } {
  const m = /^([a-z]{2})(.*)$/s.exec(value);
  if (!m) return { prefix: 'eq', rest: value };
  if (!PREFIX_SET.has(m[1]!)) {
    throw badRequest(
      `Invalid value '${value}' for parameter '${paramName}': '${m[1]}' is not a search prefix (use one of ${PREFIXES.join(', ')}).`,
    );
  }
  return { prefix: m[1] as Prefix, rest: m[2]! };
}

const NUMBER = /^([+-]?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** A number and the half-open range its written precision implies: `100` -> [99.5, 100.5). */
export function parseNumberValue(text: string): { value: number; lo: number; hi: number } | undefined {
  const m = NUMBER.exec(text);
  if (!m) return undefined;
  const value = Number(text);
  if (!Number.isFinite(value)) return undefined;
  const decimals = m[3]?.length ?? 0;
  const exponent = m[4] === undefined ? 0 : Number(m[4]);
  const half = 0.5 * 10 ** (exponent - decimals);
  return { value, lo: value - half, hi: value + half };
}

export function parseNumberQuery(raw: string, paramName: string): NumberQuery {
  const { prefix, rest } = splitPrefix(raw, paramName);
  const parsed = parseNumberValue(rest);
  if (!parsed) throw badRequest(`Invalid number '${raw}' for parameter '${paramName}': expected [prefix]number, e.g. gt5.4.`);
  return { prefix, ...parsed };
}

export function parseDateQuery(raw: string, paramName: string): DateQuery {
  const { prefix, rest } = splitPrefix(raw, paramName);
  const range = dateRange(rest);
  if (!range) {
    throw badRequest(
      `Invalid date '${raw}' for parameter '${paramName}': expected [prefix]YYYY, YYYY-MM, YYYY-MM-DD or YYYY-MM-DDThh:mm[:ss[.sss]][Z|+hh:mm], e.g. ge2024-01-31.`,
    );
  }
  return { prefix, range };
}
