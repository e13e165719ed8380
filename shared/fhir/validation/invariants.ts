/** The invariant pass: each collected invariant decided on its element instance. */
import type { FhirPathEngine } from '../fhirpath';
import { issue, type OutcomeIssue } from '../outcome';
import type { ValidationBudget } from './limits';
import { NATIVE_INVARIANTS } from './native-invariants';
import type { InvariantSite } from './structure';

export interface InvariantFailure {
  key: string;
  location: string;
  expression: string;
  error: unknown;
}

/**
 * An invariant holds when its expression yields exactly `true`; `false`, empty or anything else is
 * a violation, as in the standard's own validator. The common and the costly ones are decided in
 * TypeScript (`native-invariants.ts`); the rest through FHIRPath. An expression the engine cannot
 * evaluate on this data is not held against the resource: it is reported to `onError` and skipped.
 * The budget is checked as the pass goes, so a resource whose invariants would run long is refused
 * rather than left to the function's time limit.
 */
export function checkInvariants(
  engine: FhirPathEngine,
  sites: readonly InvariantSite[],
  budget: ValidationBudget,
  onError?: (failure: InvariantFailure) => void,
): OutcomeIssue[] {
  const issues: OutcomeIssue[] = [];
  for (const site of sites) {
    budget.spend(site.constraints.length);
    // Two invariants of one element may share an expression (txt-1 and txt-2 both check the narrative's XHTML).
    const verdicts = new Map<string, boolean>();
    for (const c of site.constraints) {
      let held = verdicts.get(c.expression);
      if (held === undefined) verdicts.set(c.expression, (held = holds(engine, c, site, onError)));
      if (held) continue;
      issues.push(issue(c.severity, 'invariant', `${site.location}: ${c.human} (${c.key})`, site.location));
    }
  }
  return issues;
}

function holds(engine: FhirPathEngine, c: InvariantSite['constraints'][number], site: InvariantSite, onError?: (failure: InvariantFailure) => void): boolean {
  const native = NATIVE_INVARIANTS.get(c.key)?.(site.data, site.env);
  if (native !== undefined) return native;
  let result: unknown[];
  try {
    result = engine.evaluate(c.expression, site.data, site.env, site.base);
  } catch (error) {
    onError?.({ key: c.key, location: site.location, expression: c.expression, error });
    return true;
  }
  return result.length === 1 && result[0] === true;
}
