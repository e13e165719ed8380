/**
 * The frame of the fuzz suites: how many cases a property runs (a few in `npm test`; `FUZZ_RUNS=n`
 * for the long form, `FUZZ_SEED` to replay one), a count of the cases tried per endpoint printed as
 * one line per suite, and the property every answer must have: a well-formed 2xx, or a 4xx in the
 * dialect of its path (an OperationOutcome on FHIR paths; `{field: [messages]}` or `{detail}` on
 * `/api/v1/`, and also the portal's own `{error}` on `/api/v1/portal/`; `{error, error_description}`
 * under `/o/`), never a 5xx.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { TestResponse } from './invoke';

/** The same cases on every run of `npm test`, unless FUZZ_SEED names others. */
const DEFAULT_SEED = 20250601;

function positiveInteger(text: string | undefined): number | undefined {
  const n = Number(text);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** Cases per property: `quick` in `npm test`, FUZZ_RUNS in the long form. */
export function fuzzRuns(quick: number): number {
  return positiveInteger(process.env.FUZZ_RUNS) ?? quick;
}

export const fuzzSeed = (): number => positiveInteger(process.env.FUZZ_SEED) ?? DEFAULT_SEED;

/** A test's time limit for `quick` cases (or the long form's), at a generous half second a case. */
export const fuzzTimeout = (quick: number): number => Math.max(60_000, fuzzRuns(quick) * 500);

/** Runs an asynchronous property for `fuzzRuns(quick)` cases; a failure names the seed and path that replay it. */
export async function fuzz<T>(quick: number, input: fc.Arbitrary<T>, property: (value: T) => Promise<void>): Promise<void> {
  await fc.assert(fc.asyncProperty(input, property), { numRuns: fuzzRuns(quick), seed: fuzzSeed(), endOnFailure: true });
}

/** Cases tried per endpoint, for the suite's one summary line. */
export class CaseCount {
  private readonly counts = new Map<string, number>();

  constructor(readonly suite: string) {}

  tried(endpoint: string): void {
    this.counts.set(endpoint, (this.counts.get(endpoint) ?? 0) + 1);
  }

  line(): string {
    const total = [...this.counts.values()].reduce((a, b) => a + b, 0);
    const parts = [...this.counts].map(([endpoint, n]) => `${endpoint} ${n}`).join(', ');
    return `fuzz ${this.suite} (seed ${fuzzSeed()}): ${total} cases: ${parts}`;
  }
}

export type Dialect = 'fhir' | 'api' | 'portal' | 'oauth';

const isTextList = (v: unknown) => Array.isArray(v) && v.length > 0 && v.every((m) => typeof m === 'string');

/** `{field: [messages]}`, fields possibly nested (a list item's own fields). */
function isFieldErrors(v: unknown): boolean {
  if (isTextList(v)) return true;
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const entries = Object.values(v);
  return entries.length > 0 && entries.every(isFieldErrors);
}

/** Asserts the property every answer must have (see the header); `what` names the case in failures. */
export function expectWellFormed(res: TestResponse, dialect: Dialect, what: string): void {
  const seen = `${what} -> ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, seen).toBeGreaterThanOrEqual(200);
  expect(res.status, seen).toBeLessThan(500);
  if (res.status < 300) {
    if (res.status !== 204 && res.text !== '') expect(res.json, seen).toBeDefined();
    return;
  }
  if (res.status === 304) return;
  const body = res.json;
  switch (dialect) {
    case 'fhir':
      expect(body?.resourceType, seen).toBe('OperationOutcome');
      expect(body.issue.length, seen).toBeGreaterThan(0);
      for (const issue of body.issue) expect(['fatal', 'error', 'warning', 'information'], seen).toContain(issue.severity);
      break;
    case 'api':
      expect(typeof body?.detail === 'string' || isFieldErrors(body), seen).toBe(true);
      break;
    case 'portal':
      expect(typeof body?.error === 'string' || typeof body?.detail === 'string' || isFieldErrors(body), seen).toBe(true);
      break;
    case 'oauth':
      expect(typeof body?.error, seen).toBe('string');
      expect(typeof body?.error_description, seen).toBe('string');
      break;
  }
}

/** A searchset Bundle as every FHIR search answers on success. */
export function expectSearchset(res: TestResponse, what: string): void {
  const seen = `${what} -> ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.json?.resourceType, seen).toBe('Bundle');
  expect(res.json.type, seen).toBe('searchset');
  expect(Array.isArray(res.json.entry), seen).toBe(true);
}
