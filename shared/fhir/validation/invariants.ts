/** The FHIRPath pass: each collected invariant evaluated on its element instance. */
import type { FhirPathEngine } from '../fhirpath';
import { issue, type OutcomeIssue } from '../outcome';
import type { InvariantSite } from './structure';

export interface InvariantFailure {
  key: string;
  location: string;
  expression: string;
  error: unknown;
}

/**
 * An invariant holds when its expression yields exactly `true`; `false`, empty or anything else is
 * a violation, as in the standard's own validator. An expression the engine cannot evaluate on
 * this data is not held against the resource: it is reported to `onError` and skipped.
 */
export function checkInvariants(
  engine: FhirPathEngine,
  sites: readonly InvariantSite[],
  onError?: (failure: InvariantFailure) => void,
): OutcomeIssue[] {
  const issues: OutcomeIssue[] = [];
  for (const site of sites) {
    for (const c of site.constraints) {
      let result: unknown[];
      try {
        result = engine.evaluate(c.expression, site.data, site.env, site.base);
      } catch (error) {
        onError?.({ key: c.key, location: site.location, expression: c.expression, error });
        continue;
      }
      if (result.length === 1 && result[0] === true) continue;
      issues.push(issue(c.severity, 'invariant', `${site.location}: ${c.human} (${c.key})`, site.location));
    }
  }
  return issues;
}
