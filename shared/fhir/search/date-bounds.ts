/**
 * Which START times can satisfy a date search, for values indexed by their start. A value is a
 * half-open range `[start, end)` at most `maxWidth` long (an instant is 1 ms wide). `rangeMatches`
 * decides exactly; these bounds only narrow what a store must read: every value outside them
 * fails, some inside may fail too. `lo` is inclusive, `hi` exclusive; an absent end is open.
 *
 * prefix  matches when (match.ts)      so the start lies in
 * eq      contained in [L, H)           [L, H)
 * ne      not contained                 anywhere
 * gt      end > H                       [H - W, ...)
 * lt      start < L                     (..., L)
 * ge      end > H, or contained         [min(L, H - W), ...)
 * le      start < L, or contained       (..., H)
 * sa      start >= H                    [H, ...)
 * eb      end <= L                      (..., L)
 * ap      overlaps [L - T, H + T)       [L - T - W, H + T)
 */
import type { DateQuery } from './criteria';

export interface StartBounds {
  lo?: number;
  hi?: number;
}

/** Tolerance of `ap` around a search range (as `dateMatches` applies it). */
export function approximateTolerance(query: DateQuery, now: number): number {
  return 0.1 * Math.abs(now - (query.range.lo + query.range.hi) / 2);
}

export function startBounds(query: DateQuery, maxWidth: number, now: number): StartBounds {
  const { lo: L, hi: H } = query.range;
  const W = Math.max(1, maxWidth);
  switch (query.prefix) {
    case 'eq':
      return { lo: L, hi: H };
    case 'ne':
      return {};
    case 'gt':
      return { lo: H - W };
    case 'lt':
    case 'eb':
      return { hi: L };
    case 'ge':
      return { lo: Math.min(L, H - W) };
    case 'le':
      return { hi: H };
    case 'sa':
      return { lo: H };
    case 'ap': {
      const T = approximateTolerance(query, now);
      return { lo: L - T - W, hi: H + T };
    }
  }
}

/** Bounds of a parameter whose values are alternatives (comma = OR): the span covering them all. */
export function anyOfBounds(bounds: readonly StartBounds[]): StartBounds {
  const out: StartBounds = {};
  if (bounds.every((b) => b.lo !== undefined)) out.lo = Math.min(...bounds.map((b) => b.lo!));
  if (bounds.every((b) => b.hi !== undefined)) out.hi = Math.max(...bounds.map((b) => b.hi!));
  return out;
}

/** Bounds of parameters that must all hold (repetition = AND): their overlap. */
export function allOfBounds(bounds: readonly StartBounds[]): StartBounds {
  const out: StartBounds = {};
  for (const b of bounds) {
    if (b.lo !== undefined) out.lo = out.lo === undefined ? b.lo : Math.max(out.lo, b.lo);
    if (b.hi !== undefined) out.hi = out.hi === undefined ? b.hi : Math.min(out.hi, b.hi);
  }
  return out;
}

/** True when no start can satisfy the bounds. */
export function isEmptyBounds(b: StartBounds): boolean {
  return b.lo !== undefined && b.hi !== undefined && b.lo >= b.hi;
}
