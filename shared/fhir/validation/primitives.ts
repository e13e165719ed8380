/**
 * Formats of FHIR primitive values in JSON: the JSON kind, the StructureDefinition's regex, the
 * integer ranges, and calendar validity of dates (a regex lets `2023-02-30` through).
 */
import { primitiveType } from '../definitions';

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const regexCache = new Map<string, RegExp | null>();

function regexFor(type: string): RegExp | null {
  let re = regexCache.get(type);
  if (re === undefined) {
    const source = primitiveType(type)?.regex;
    re = source ? new RegExp(`^(?:${source})$`) : null;
    regexCache.set(type, re);
  }
  return re;
}

const describe = (value: unknown) =>
  typeof value === 'string' ? `'${value.length > 80 ? `${value.slice(0, 77)}...` : value}'` : JSON.stringify(value);

/** Checks a JSON value against a primitive type; returns the problem in prose, or undefined. */
export function primitiveProblem(type: string, value: unknown): string | undefined {
  const def = primitiveType(type);
  if (!def) return `${type} is not a primitive type`;
  if (typeof value !== def.json) {
    return `${describe(value)} is not a valid ${type}: expected a JSON ${def.json}`;
  }
  if (def.json === 'boolean') return undefined;
  if (def.json === 'number') return numberProblem(type, value as number);
  const text = value as string;
  if (text.length === 0) return `an empty string is not a valid ${type} (leave the element out instead)`;
  if (type === 'string' || type === 'markdown') {
    // The published regex ([\s\S]+) says no more than non-empty; skip the scan of long texts.
    return undefined;
  }
  if (type === 'xhtml') {
    return /^\s*<div[\s>]/.test(text) ? undefined : `the narrative must be an XHTML <div> element`;
  }
  const re = regexFor(type);
  if (re && !re.test(text)) {
    if (type === 'id' && text.length > 64) return `${describe(text)} is not a valid id: at most 64 characters are allowed (it has ${text.length})`;
    return `${describe(text)} is not a valid ${type}`;
  }
  if (type === 'dateTime' && text.includes('T') && !/(Z|[+-]\d{2}:\d{2})$/.test(text)) {
    return `${describe(text)} is not a valid dateTime: a time of day needs a time zone (Z or an offset)`;
  }
  if (type === 'date' || type === 'dateTime' || type === 'instant') return calendarProblem(type, text);
  if (type === 'integer64') {
    const n = BigInt(text);
    if (n < INT64_MIN || n > INT64_MAX) return `${describe(text)} is out of range for integer64`;
  }
  return undefined;
}

function numberProblem(type: string, n: number): string | undefined {
  if (!Number.isFinite(n)) return `${n} is not a valid ${type}`;
  if (type === 'decimal') return undefined;
  if (!Number.isInteger(n)) return `${n} is not a valid ${type}: it must be a whole number`;
  if (n < INT32_MIN || n > INT32_MAX) return `${n} is out of range for ${type} (32-bit signed)`;
  if (type === 'positiveInt' && n < 1) return `${n} is not a valid positiveInt: it must be at least 1`;
  if (type === 'unsignedInt' && n < 0) return `${n} is not a valid unsignedInt: it must not be negative`;
  return undefined;
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The regex bounds each field; only the day of the month needs the calendar. */
function calendarProblem(type: string, text: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (!m) return undefined;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (day > daysInMonth(year, month)) return `'${text}' is not a valid ${type}: ${m[0]} is not a calendar date`;
  return undefined;
}
