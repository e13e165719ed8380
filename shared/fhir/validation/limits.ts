/**
 * What one resource may hold, and how long its validation may take: every step of validation is
 * linear in the resource, and these bounds keep that line short. A resource past a bound is refused
 * before it is validated (413); a validation that would still run past its time is stopped (422).
 * Both answers say what to change, and neither stores anything. docs/api.md#limits lists them.
 */
import { HttpError } from '../../http/errors';

/** JSON values in one resource (objects, list items, primitives): a 5 MB body of real FHIR holds about 150,000. */
export const MAX_RESOURCE_VALUES = 250_000;
/** Contained resources in one resource, at every level (a Bundle's entries each have their own). */
export const MAX_CONTAINED_RESOURCES = 1_000;
/** Wall time one resource's validation may take, far above what the bounds above allow on a busy machine. */
export const VALIDATION_TIME_LIMIT_MS = 3_000;

type Json = Record<string, unknown>;

/**
 * Counts what a resource holds in one pass and refuses it past a bound. The JSON was parsed with
 * its depth limited (`MAX_JSON_DEPTH`), so the walk's stack is bounded too.
 */
export function assertWithinBounds(resource: unknown, location: string): void {
  let values = 0;
  let contained = 0;
  const pending: unknown[] = [resource];
  while (pending.length > 0) {
    const value = pending.pop();
    values += 1;
    if (values > MAX_RESOURCE_VALUES) {
      throw new HttpError(413, `The resource holds more than ${MAX_RESOURCE_VALUES} values; split it into smaller resources.`, 'too-costly').at(location);
    }
    if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
    } else if (typeof value === 'object' && value !== null) {
      const list = (value as Json).contained;
      if (Array.isArray(list)) contained += list.length;
      for (const item of Object.values(value)) pending.push(item);
    }
  }
  if (contained > MAX_CONTAINED_RESOURCES) {
    throw new HttpError(
      413,
      `The resource holds ${contained} contained resources; at most ${MAX_CONTAINED_RESOURCES} are accepted. Send the others as resources of their own and reference them.`,
      'too-costly',
    ).at(`${location}.contained`);
  }
}

/** The time a validation has left; checked every so many steps, so the check itself costs nothing. */
export class ValidationBudget {
  private readonly until: number;
  private steps = 0;

  constructor(
    private readonly location: string,
    private readonly limitMs = VALIDATION_TIME_LIMIT_MS,
  ) {
    this.until = performance.now() + limitMs;
  }

  spend(steps: number): void {
    this.steps += steps;
    if (this.steps < 256) return;
    this.steps = 0;
    if (performance.now() > this.until) {
      throw new HttpError(422, `Validating this resource took longer than the service allows (${this.limitMs / 1000} s): it is too complex to check. Split it into smaller resources.`, 'too-costly').at(this.location);
    }
  }
}
