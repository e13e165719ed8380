/**
 * The positions a native search's cursors carry (the kernel in shared/fhir/searchset binds them to
 * their search): the order they belong to and the row's patient, id, undated flag and time. A
 * position from another order, or with values no row can have, is not one.
 */
import type { PositionCodec } from '../../fhir/searchset';
import type { Order, Position } from './order';

/** The largest distance from the epoch a JavaScript date can hold (ECMAScript's time range). */
const MAX_DATE_MS = 8.64e15;

const orderCode = (o: Order) => `${o.kind[0]}${o.descending ? 'd' : 'a'}`;

const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

export function observationPositions(order: Order): PositionCodec<Position> {
  return {
    encode: (at) => [orderCode(order), at.p, at.i, at.u, at.t],
    decode: (value) => {
      if (!Array.isArray(value) || value.length !== 5) return undefined;
      const [code, p, i, u, t] = value as unknown[];
      const time = typeof t === 'number' && Number.isSafeInteger(t) && Math.abs(t) <= MAX_DATE_MS;
      if (code !== orderCode(order) || !isCount(p) || !isCount(i) || (u !== 0 && u !== 1) || !time) return undefined;
      return { p, i, u, t: t as number };
    },
  };
}
