/**
 * The opaque position of a `next` / `previous` link: the order, the direction and the row the page
 * ended (or started) at, bound to the search it belongs to. It carries no rights: every page
 * re-runs the caller's scoping from the search parameters, so an edited cursor can at most move
 * within what the caller may see anyway. A cursor used with other search parameters (or one that
 * does not parse) is a 400.
 */
import { CURSOR_PARAM, cursorJson, cursorText, searchDigest } from '../../fhir/searchset';
import { badRequest } from '../../http/errors';
import type { Order, Position } from './order';

export interface Cursor {
  order: Order;
  /** `previous` links walk the order backwards from `at`. */
  backward: boolean;
  at: Position;
}

/** What a cursor is bound to: the search parameters except the cursor and the page size. */
export function searchFingerprint(params: URLSearchParams): string {
  const relevant = [...params].filter(([k]) => k !== CURSOR_PARAM && k !== '_count').map(([k, v]) => `${k}=${v}`);
  return searchDigest(relevant.join('&'));
}

/** The largest distance from the epoch a JavaScript date can hold (ECMAScript's time range). */
const MAX_DATE_MS = 8.64e15;

const orderCode = (o: Order) => `${o.kind[0]}${o.descending ? 'd' : 'a'}`;

export function encodeCursor(cursor: Cursor, fingerprint: string): string {
  const { order, backward, at } = cursor;
  const fields = [1, orderCode(order), backward ? 'b' : 'f', at.p, at.i, at.u, at.t, fingerprint];
  return cursorText(fields);
}

const invalid = () => badRequest(`The ${CURSOR_PARAM} value is not valid for this search: follow the links of the previous page as they are.`);

export function decodeCursor(text: string, order: Order, fingerprint: string): Cursor {
  const fields = cursorJson(text, invalid);
  if (!Array.isArray(fields) || fields.length !== 8 || fields[0] !== 1) throw invalid();
  const [, code, direction, p, i, u, t, bound] = fields as unknown[];
  const numbers = [p, i, t].every((n) => typeof n === 'number' && Number.isSafeInteger(n)) && (p as number) >= 0 && (i as number) >= 0 && Math.abs(t as number) <= MAX_DATE_MS;
  if (code !== orderCode(order) || (direction !== 'f' && direction !== 'b') || !numbers || (u !== 0 && u !== 1) || bound !== fingerprint) {
    throw invalid();
  }
  return { order, backward: direction === 'b', at: { p: p as number, i: i as number, u: u as 0 | 1, t: t as number } };
}
