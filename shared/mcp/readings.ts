/**
 * Mobile-health readings as the tools read them: through the Observation search itself
 * (`searchObservations`, the caller's scoping included), with its own cursor, and shown slim (time,
 * type, the values the reading's components show) or as the FHIR resource a read answers.
 */
import type { Caller } from '../auth/caller';
import type { Code, Id } from '../directory/model';
import { CURSOR_PARAM, encodeCursor, linkedSearch, type LinkedSearch } from '../fhir/searchset';
import { codesById } from '../observations/code-table-cache';
import { toFhirObservation } from '../observations/fhir-observation';
import type { StoredObservation } from '../observations/model';
import { observationPositions } from '../observations/search/cursor';
import { searchObservations } from '../observations/search/execute';
import type { Position } from '../observations/search/order';
import { parseNativeQuery } from '../observations/search/query';
import { readingValues } from '../observations/values';
import { schemaQuantities } from '../omh/quantities';

/** Where a search's links would point: the tools show no links, only the search's cursor (bound to its parameters). */
const TOOL_SITE = { origin: 'https://mcp.invalid', base: '/FHIR/R5' };

export interface ReadingsPage {
  rows: StoredObservation[];
  /** The search's own cursor of the next page. */
  next?: string;
  total?: number;
}

/** One page of the search `params` (as the FHIR API takes them) for the caller, from the search's cursor text. */
export async function searchReadings(caller: Caller, params: URLSearchParams, cursor: string | undefined, now: number): Promise<ReadingsPage> {
  const withCursor = new URLSearchParams(params);
  if (cursor !== undefined) withCursor.set(CURSOR_PARAM, cursor);
  const query = parseNativeQuery(withCursor);
  const linked: LinkedSearch<Position> = linkedSearch(TOOL_SITE, 'Observation', params, observationPositions(query.order));
  const page = await searchObservations(caller, query, linked, now);
  return {
    rows: page.rows,
    ...(page.next ? { next: encodeCursor(page.next, linked.codec, linked.digest) } : {}),
    ...(page.total !== undefined ? { total: page.total } : {}),
  };
}

/** How many readings the search finds (`_summary=count`): counted by the store, no reading downloaded. */
export async function countOf(caller: Caller, params: URLSearchParams, now: number): Promise<number> {
  const counted = new URLSearchParams(params);
  counted.set('_summary', 'count');
  return (await searchReadings(caller, counted, undefined, now)).total ?? 0;
}

/** The `date` parameters of a period: each end covers its whole precision (`le2025-06-30` takes that whole day). */
export function periodParams(from: string | undefined, to: string | undefined): Array<[string, string]> {
  return [...(from ? [['date', `ge${from}`] as [string, string]] : []), ...(to ? [['date', `le${to}`] as [string, string]] : [])];
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
