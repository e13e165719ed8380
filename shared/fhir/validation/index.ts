/**
 * R5 validation of a resource against the standard's definitions: structure, datatypes, primitive
 * formats, cardinality, choice types, contained and nested resources, required bindings (see
 * `structure.ts`), then every invariant through FHIRPath (`invariants.ts`). The result is a list
 * of OperationOutcome issues whose `expression` locates each problem, e.g.
 * `Observation.code.coding[0].system`.
 *
 * What one resource may hold and how long its validation may take are bounded (`limits.ts`): past
 * them, an HttpError (413 or 422) is thrown instead of a list of issues.
 */
import { isKnownResourceType } from '../definitions';
import { loadFhirPath } from '../fhirpath';
import { issue, type OutcomeIssue } from '../outcome';
import { checkInvariants, type InvariantFailure } from './invariants';
import { assertWithinBounds, ValidationBudget } from './limits';
import { newWalk, walkResource } from './structure';

export { isKnownResourceType };
export type { InvariantFailure };

export interface ValidationOptions {
  /** The type the resource must be (a URL's type): another `resourceType` is an error. */
  expectedType?: string;
  /** Told about each invariant the engine could not evaluate (it is skipped, not failed). */
  onInvariantError?: (failure: InvariantFailure) => void;
  /** Lifts the bounds and the time limit (`limits.ts`): for tools that check the standard's own conformance resources. */
  unbounded?: boolean;
}

export async function validateResource(resource: unknown, options: ValidationOptions = {}): Promise<OutcomeIssue[]> {
  const engine = await loadFhirPath();
  const walk = newWalk(engine.isValidUcumUnit);
  const declared = (resource as { resourceType?: unknown } | null)?.resourceType;
  const location = typeof declared === 'string' && isKnownResourceType(declared) ? declared : (options.expectedType ?? 'Resource');
  if (options.expectedType && typeof declared === 'string' && declared !== options.expectedType) {
    return [
      issue(
        'error',
        'invalid',
        `resourceType: '${declared}' does not match the expected type ${options.expectedType}`,
        `${options.expectedType}.resourceType`,
      ),
    ];
  }
  if (!options.unbounded) assertWithinBounds(resource, location);
  const budget = new ValidationBudget(location, options.unbounded ? Number.POSITIVE_INFINITY : undefined);
  walkResource(resource, location, walk);
  return [...walk.issues, ...checkInvariants(engine, walk.sites, budget, options.onInvariantError)];
}

/** True when any issue is an error (warnings alone do not reject a resource). */
export function hasErrors(issues: readonly OutcomeIssue[]): boolean {
  return issues.some((i) => i.severity === 'error' || i.severity === 'fatal');
}
