/**
 * Loads the FHIRPath engine on first use. Importing it costs tens of milliseconds (its parser and
 * the UCUM tables), which a Lambda should pay only when a request needs FHIRPath (validation,
 * index extraction), never at cold start: the bundler keeps a dynamic import's module lazy.
 */
export type { FhirPathEnv, TypedValue } from './engine';
export { Lookups } from './lookups';

export type FhirPathEngine = typeof import('./engine');

let loading: Promise<FhirPathEngine> | undefined;

export function loadFhirPath(): Promise<FhirPathEngine> {
  loading ??= import('./engine');
  return loading;
}
