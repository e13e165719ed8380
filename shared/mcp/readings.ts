/**
 * Mobile-health readings as the tools show them: slim (time, type, the values the reading's
 * components show) or as the FHIR resource a read answers, and the first or last reading of a
 * query. The readings come from the series' typed functions (shared/observations/series.ts), which
 * run the Observation search itself (the caller's scoping included).
 */
import type { Caller } from '../auth/caller';
import type { Code, Id } from '../directory/model';
import { codesById } from '../observations/code-table-cache';
import { toFhirObservation } from '../observations/fhir-observation';
import type { StoredObservation } from '../observations/model';
import { findReadings, type SeriesQuery } from '../observations/series';
import { readingValues } from '../observations/values';
import { schemaQuantities } from '../omh/quantities';

/** The first (`oldest`) or last (`newest`) dated reading the query finds. */
export async function edgeReading(caller: Caller, query: SeriesQuery, order: 'oldest' | 'newest', now: number): Promise<SlimReading | undefined> {
  const [row] = (await findReadings(caller, { ...query, order, limit: 1 }, now)).rows;
  // Undated readings come last both ways: the first row is dated whenever any is.
  if (!row || !row.effective) return undefined;
  const codes = await codesById([row.codeId]);
  return slimReading(row, codes.get(row.codeId)!);
}

export interface SlimReading {
  id: string;
  type: string;
  display: string;
  patientId: Id;
  /** Effective start (ISO 8601 UTC); null for a reading without a time frame. */
  start: string | null;
  /** Effective end, for a reading over a period. */
  end: string | null;
  values: Array<{ name: string; value: number; unit: string }>;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function slimReading(row: StoredObservation, code: Code): SlimReading {
  const effective = row.effective;
  const quantities = readingValues(row, code.code);
  return {
    id: String(row.id),
    type: code.code,
    display: code.display,
    patientId: row.patientId,
    start: effective ? iso(effective.start) : null,
    end: effective && effective.kind === 'period' ? iso(effective.end) : null,
    values: quantities.map((q) => ({ name: memberPath(code.code, q.member), value: q.value, unit: q.unit })),
  };
}

/** A value's name: its member's dotted path (`systolic_blood_pressure`). */
const memberPath = (schemaCode: string, member: number) => schemaQuantities(schemaCode)?.members[member]?.path ?? String(member);

/** The rows slim or as FHIR resources, with their codes read once. */
export async function renderReadings(rows: readonly StoredObservation[], format: 'slim' | 'fhir'): Promise<{ slim: SlimReading[]; fhir: Array<Record<string, unknown>> }> {
  const codes = await codesById(rows.map((r) => r.codeId));
  if (format === 'fhir') return { slim: [], fhir: rows.map((r) => toFhirObservation(r, codes.get(r.codeId)!) as unknown as Record<string, unknown>) };
  return { slim: rows.map((r) => slimReading(r, codes.get(r.codeId)!)), fhir: [] };
}

/** One line of a reading for the text rendering. */
export function readingLine(r: SlimReading): string {
  const values = r.values.map((v) => `${v.name} ${v.value} ${v.unit}`).join(', ');
  return `${r.start ?? 'undated'} ${r.type}${values ? `: ${values}` : ''} (id ${r.id})`;
}
