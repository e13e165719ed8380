/**
 * Conditions of conversion facts, in the cross-version maps' notation. Only equality against a
 * literal is honoured: `s = 'x'`, `s != 'x'`, `s.child = 'x'`, bare or in parentheses. Anything
 * richer (FHIRPath functions, `and`/`or`, casts) is refused, and the fact is not compiled.
 */
import type { RuleCondition } from '../../shared/r4-import/model';

const EQUALITY = /^\s*s(?:\.([A-Za-z][A-Za-z0-9]*))?\s*(!=|=)\s*'((?:[^'\\]|\\.)*)'\s*$/;

export function parseCondition(text: string): RuleCondition | undefined {
  let inner = text.trim();
  while (inner.startsWith('(') && inner.endsWith(')')) inner = inner.slice(1, -1).trim();
  const m = EQUALITY.exec(inner);
  if (!m) return undefined;
  const condition: RuleCondition = { op: m[2] as '=' | '!=', value: m[3]!.replace(/\\(.)/g, '$1') };
  if (m[1]) condition.child = m[1];
  return condition;
}
