/** FHIR OperationOutcome values: the one shape every FHIR error and per-entry result uses. */

export type IssueSeverity = 'fatal' | 'error' | 'warning' | 'information';

/** The R5 `issue-type` codes this service emits. */
export type IssueCode =
  | 'invalid'
  | 'structure'
  | 'required'
  | 'value'
  | 'invariant'
  | 'code-invalid'
  | 'security'
  | 'login'
  | 'forbidden'
  | 'processing'
  | 'not-supported'
  | 'duplicate'
  | 'conflict'
  | 'not-found'
  | 'deleted'
  | 'too-long'
  | 'too-costly'
  | 'throttled'
  | 'transient'
  | 'timeout'
  | 'business-rule'
  | 'exception'
  | 'informational';

export interface OutcomeIssue {
  severity: IssueSeverity;
  code: IssueCode;
  diagnostics: string;
  /** FHIRPath locations of the problem, e.g. `Observation.status`. */
  expression?: string[];
}

export interface OperationOutcome {
  resourceType: 'OperationOutcome';
  issue: OutcomeIssue[];
}

export function operationOutcome(issues: readonly OutcomeIssue[]): OperationOutcome {
  return { resourceType: 'OperationOutcome', issue: issues.map((i) => ({ ...i })) };
}

export function issue(
  severity: IssueSeverity,
  code: IssueCode,
  diagnostics: string,
  expression?: string | readonly string[],
): OutcomeIssue {
  const result: OutcomeIssue = { severity, code, diagnostics };
  if (expression !== undefined) result.expression = typeof expression === 'string' ? [expression] : [...expression];
  return result;
}
