/**
 * `_sort`: any parameter of the type, `-` for descending. Ascending orders by each row's lowest
 * value (a date range's start), descending by its highest (a range's end); rows without a value
 * come last both ways.
 */
import { badRequest } from '../../http/errors';
import type { SortSpec } from './criteria';
import type { NumberValue, ReferenceValue, SearchIndex, StringValue, TokenValue } from './index-values';
import { findSearchParam } from './parse';

/** Parses `_sort=a,-b`; a name the type does not have, or a composite, is a 400. */
export function parseSort(type: string, value: string): SortSpec[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((item) => {
      const descending = item.startsWith('-');
      const name = descending ? item.slice(1) : item;
      const param = findSearchParam(type, name);
      if (!param || !param.expression || param.type === 'composite' || param.type === 'special' || param.processing === 'other') {
        throw badRequest(`Cannot sort ${type} by '${name}': it is not a sortable search parameter of ${type}.`);
      }
      return { param, descending };
    });
}

type Key = number | string;

function scalar(kind: string, value: unknown, descending: boolean): Key | undefined {
  switch (kind) {
    case 'date':
    case 'number':
    case 'quantity': {
      const v = value as NumberValue;
      return descending ? v.hi : v.lo;
    }
    case 'string':
      return (value as StringValue).n;
    case 'token': {
      const v = value as TokenValue;
      return v.c ?? v.t;
    }
    case 'reference': {
      const v = value as ReferenceValue;
      return v.r ?? v.u;
    }
    case 'uri':
      return value as string;
    default:
      return undefined;
  }
}

/** The row's key for one sort: its lowest value ascending, its highest descending. */
export function sortKey(index: SearchIndex, spec: SortSpec): Key | undefined {
  let best: Key | undefined;
  for (const value of index[spec.param.code] ?? []) {
    const key = scalar(spec.param.type, value, spec.descending);
    if (key === undefined) continue;
    if (best === undefined || (spec.descending ? key > best : key < best)) best = key;
  }
  return best;
}

/** Comparator over indexes for `Array.prototype.sort`; ties fall through to the next spec. */
export function compareBySort(a: SearchIndex, b: SearchIndex, specs: readonly SortSpec[]): number {
  for (const spec of specs) {
    const order = compareSortKeys(sortKey(a, spec), sortKey(b, spec), spec.descending);
    if (order !== 0) return order;
  }
  return 0;
}

/** Order of two rows' keys for one sort: rows without a value (undefined) last in both directions. */
export function compareSortKeys(ka: Key | undefined, kb: Key | undefined, descending: boolean): number {
  if (ka === kb) return 0;
  if (ka === undefined) return 1;
  if (kb === undefined) return -1;
  const order = ka < kb ? -1 : 1;
  return descending ? -order : order;
}
