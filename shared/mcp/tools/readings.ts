/**
 * The tools over a patient's (or a study's) mobile-health readings, each through the typed domain
 * function the FHIR API's search, count and `$lastn` share (shared/observations/series.ts): a typed
 * query in (the readings of a period, `from` and `to`, as shared/observations/period.ts defines
 * them), rows and an opaque cursor out. The patient or study is checked first (access.ts), so one
 * out of reach answers as an unknown id, never as a patient without readings.
 */
import * as z from 'zod';
import { allCodes } from '../../observations/code-table-cache';
import { periodOfDates } from '../../observations/period';
import { countReadingsByCode, findReadings, latestReadings, type Subject } from '../../observations/series';
import { schemaQuantities } from '../../omh/quantities';
import { schemaForCode } from '../../omh/schemas/index';
import { readVisiblePatient, visibleStudy } from '../access';
import { encodeToolCursor, textPosition, toolCursorPosition } from '../cursor';
import { cursorField, fromField, optionalPatientIdField, pageSizeField, readingTypeField, studyIdField, toField } from '../fields';
import { edgeReading, readingLine, renderReadings } from '../readings';
import { resolveReadingType } from '../reading-types';
import { defineTool, ToolRefusal } from '../tool';

/** Slim readings in one answer, at most; FHIR resources (each with its payload) at most. */
export const MAX_SLIM_READINGS = 100;
export const MAX_FHIR_READINGS = 20;
const DEFAULT_READINGS = 20;
/** Newest readings of each type `latest_readings` gives at most (20 types: 200 readings at most). */
export const MAX_LATEST_PER_TYPE = 10;

export const slimReadingShape = z.object({
  id: z.string(),
  type: z.string(),
  display: z.string(),
  patientId: z.number(),
  start: z.string().nullable(),
  end: z.string().nullable(),
  values: z.array(z.object({ name: z.string(), value: z.number(), unit: z.string() })),
});

/** The mobile-health types with a schema, in code-table order (the table may hold other codes). */
export async function readingCodes() {
  return (await allCodes()).filter((c) => schemaForCode(c.code));
}

export const patientReadingDatesTool = defineTool({
  name: 'patient_reading_dates',
  title: 'First and last reading dates',
  description: "When a patient's readings begin and end: the effective time of the first and the last reading, of every type or of one type. Null when there is none.",
  input: { patientId: optionalPatientIdField, readingType: readingTypeField.optional() },
  output: { patientId: z.number(), readingType: z.string().nullable(), first: z.string().nullable(), last: z.string().nullable() },
  reads: ['Observation'],
  async run(args, context) {
    const { patientId, result } = await readVisiblePatient(context.caller, args.patientId, async (id) => {
      const type = args.readingType === undefined ? undefined : resolveReadingType(args.readingType).code;
      const query = { subject: { patientId: id }, ...(type ? { codes: [type] } : {}) };
      return { type, edges: await Promise.all([edgeReading(context.caller, query, 'oldest', context.now), edgeReading(context.caller, query, 'newest', context.now)]) };
    });
    const { type, edges: [first, last] } = result;
    context.touched([patientId]);
    const structured = { patientId, readingType: type ?? null, first: first?.start ?? null, last: last?.start ?? null };
    return { structured, text: structured.first ? `Readings of patient ${patientId}${type ? ` (${type})` : ''} from ${structured.first} to ${structured.last}.` : `Patient ${patientId} has no dated readings${type ? ` of ${type}` : ''}.` };
  },
});

export const countReadingsTool = defineTool({
  name: 'count_readings',
  title: 'Count readings by type',
  description:
    "How many readings a patient, or a study's patients, have of each type, optionally within a period or of one type: counted where the data is, nothing downloaded. Name patientId or studyId (a signed-in patient may name neither, to mean themselves). A study counts only the types it collects.",
  input: { patientId: optionalPatientIdField, studyId: studyIdField.optional(), readingType: readingTypeField.optional(), from: fromField, to: toField },
  output: {
    patientId: z.number().nullable(),
    studyId: z.number().nullable(),
    total: z.number(),
    byType: z.array(z.object({ type: z.string(), display: z.string(), count: z.number() })).describe('Types with at least one reading, in code-table order'),
  },
  reads: ['Observation'],
  async run(args, context) {
    const { caller, now } = context;
    if (args.patientId !== undefined && args.studyId !== undefined) throw new ToolRefusal('Name patientId or studyId, not both.');
    const period = periodOfDates(args.from, args.to);
    // Every type's count from one resolution of the caller's scope, each as a search of that type counts it.
    const byCode = async (subject: Subject) => {
      const named = args.readingType === undefined ? undefined : resolveReadingType(args.readingType).code;
      const codes = (await readingCodes()).filter((c) => named === undefined || c.code === named);
      const counts = await countReadingsByCode(caller, { subject, codes: codes.map((c) => c.code), period }, now);
      return codes.map((code, i) => ({ type: code.code, display: code.display, count: counts[i]! }));
    };
    let patientId: number | null = null;
    let counts: Awaited<ReturnType<typeof byCode>>;
    if (args.studyId !== undefined) {
      await visibleStudy(caller, args.studyId);
      counts = await byCode({ studyId: args.studyId });
    } else {
      const counted = await readVisiblePatient(caller, args.patientId, (id) => byCode({ patientId: id }));
      patientId = counted.patientId;
      counts = counted.result;
      context.touched([patientId]);
    }
    const byType = counts.filter((c) => c.count > 0);
    const total = byType.reduce((sum, c) => sum + c.count, 0);
    const who = patientId !== null ? `patient ${patientId}` : `study ${args.studyId}`;
    return {
      structured: { patientId, studyId: args.studyId ?? null, total, byType },
      text: [`${total} readings of ${who}.`, ...byType.map((c) => `- ${c.type}: ${c.count}`)].join('\n'),
    };
  },
});

export const getReadingsTool = defineTool({
  name: 'get_readings',
  title: "Get a patient's readings",
  description: `A page of a patient's readings, newest first, optionally of one type and within a period. format "slim" (the default) gives each reading's time, type and values; "fhir" the FHIR Observation with its Open mHealth payload. At most ${MAX_SLIM_READINGS} slim or ${MAX_FHIR_READINGS} FHIR readings per answer; nextCursor continues.`,
  input: {
    patientId: optionalPatientIdField,
    readingType: readingTypeField.optional(),
    from: fromField,
    to: toField,
    format: z.enum(['slim', 'fhir']).optional().describe('slim (default): time, type, values; fhir: the full FHIR Observation resources'),
    pageSize: pageSizeField(DEFAULT_READINGS, MAX_SLIM_READINGS),
    cursor: cursorField,
  },
  output: {
    patientId: z.number(),
    readings: z.array(slimReadingShape).optional(),
    resources: z.array(z.record(z.string(), z.unknown())).optional(),
    nextCursor: z.string().optional(),
  },
  reads: ['Observation'],
  async run(args, context) {
    const format = args.format ?? 'slim';
    const size = Math.min(args.pageSize ?? DEFAULT_READINGS, format === 'fhir' ? MAX_FHIR_READINGS : MAX_SLIM_READINGS);
    // The format changes nothing of the search: a cursor continues across formats as across page sizes.
    const bound = { ...args, format: undefined };
    const { patientId, result: page } = await readVisiblePatient(context.caller, args.patientId, async (id) => {
      const cursor = textPosition(toolCursorPosition('get_readings', bound, args.cursor));
      const type = args.readingType === undefined ? undefined : resolveReadingType(args.readingType).code;
      const period = periodOfDates(args.from, args.to);
      return findReadings(context.caller, { subject: { patientId: id }, ...(type ? { codes: [type] } : {}), period, order: 'newest', limit: size, ...(cursor === undefined ? {} : { cursor }) }, context.now);
    });
    context.touched([patientId]);
    const rendered = await renderReadings(page.rows, format);
    const next = page.cursor ? { nextCursor: encodeToolCursor('get_readings', bound, page.cursor) } : {};
    const summary = `${page.rows.length} readings of patient ${patientId}${page.cursor ? ' (more follow: nextCursor)' : ''}.`;
    if (format === 'fhir') return { structured: { patientId, resources: rendered.fhir, ...next }, text: summary };
    return { structured: { patientId, readings: rendered.slim, ...next }, text: [summary, ...rendered.slim.map(readingLine)].join('\n') };
  },
});

const COMPARATORS = ['gt', 'ge', 'lt', 'le', 'eq', 'ne', 'ap'] as const;
/** Largest magnitude of a value searched for: beyond any reading, within what a number prints exactly. */
const MAX_SEARCHED_VALUE = 1e12;

export const searchReadingsByValueTool = defineTool({
  name: 'search_readings_by_value',
  title: 'Find readings by value',
  description: `A patient's readings of one type whose value compares to a number, e.g. heart rates above 120 this week (readingType heart-rate, comparator gt, value 120, from the week's first day), or blood pressures with a systolic of at least 140 (readingType blood-pressure, member systolic_blood_pressure, comparator ge, value 140). With a unit the value is compared in it (kg finds weights uploaded in pounds); without, as uploaded. Newest first, with the total; at most ${MAX_SLIM_READINGS} per answer; nextCursor continues.`,
  input: {
    patientId: optionalPatientIdField,
    readingType: readingTypeField,
    member: z.string().min(1).max(120).regex(/^[a-z0-9_.]+$/).optional().describe("Which value of the reading (get_omh_schema lists them, e.g. systolic_blood_pressure); the reading's principal value when left out"),
    comparator: z.enum(COMPARATORS).describe('gt >, ge >=, lt <, le <=, eq = (within the precision given), ne, ap (within 10%)'),
    value: z.number().min(-MAX_SEARCHED_VALUE).max(MAX_SEARCHED_VALUE),
    unit: z.string().min(1).max(40).regex(/^[!-~]+$/).optional().describe('A UCUM code or an Open mHealth unit (kg, lb, beats/min, mmHg, Cel, [degF])'),
    from: fromField,
    to: toField,
    pageSize: pageSizeField(DEFAULT_READINGS, MAX_SLIM_READINGS),
    cursor: cursorField,
  },
  output: { patientId: z.number(), total: z.number(), readings: z.array(slimReadingShape), nextCursor: z.string().optional() },
  reads: ['Observation'],
  async run(args, context) {
    const { patientId, result } = await readVisiblePatient(context.caller, args.patientId, async (id) => {
      const schema = resolveReadingType(args.readingType);
      const quantities = schemaQuantities(schema.code);
      const members = quantities?.members ?? [];
      const index = args.member === undefined ? quantities?.principal : members.findIndex((m) => m.path === args.member);
      const member = index === undefined || index < 0 ? undefined : members[index];
      if (!member) {
        const names = members.map((m) => m.path).join(', ');
        throw new ToolRefusal(names ? `Name the value to compare with member: one of ${names}.` : `${schema.code} readings have no values to compare.`);
      }
      const cursor = textPosition(toolCursorPosition('search_readings_by_value', args, args.cursor));
      const value = { code: schema.code, member: index!, comparator: args.comparator, value: args.value, ...(args.unit === undefined ? {} : { unit: args.unit }) };
      const query = { subject: { patientId: id }, codes: [schema.code], period: periodOfDates(args.from, args.to), values: [value] };
      const page = await findReadings(context.caller, { ...query, order: 'newest', limit: args.pageSize ?? DEFAULT_READINGS, total: true, ...(cursor === undefined ? {} : { cursor }) }, context.now);
      return { schema, member, page };
    });
    const { schema, member, page } = result;
    context.touched([patientId]);
    const { slim } = await renderReadings(page.rows, 'slim');
    const total = page.total ?? slim.length;
    return {
      structured: { patientId, total, readings: slim, ...(page.cursor ? { nextCursor: encodeToolCursor('search_readings_by_value', args, page.cursor) } : {}) },
      text: [`${total} ${schema.code} readings of patient ${patientId} with ${member.path} ${args.comparator} ${args.value}${args.unit ? ` ${args.unit}` : ''}.`, ...slim.map(readingLine)].join('\n'),
    };
  },
});

export const latestReadingsTool = defineTool({
  name: 'latest_readings',
  title: 'Latest readings',
  description: `The newest readings of each type a patient has (or of one type, or of a category: vital-signs or activity): max per type, 1 by default, at most ${MAX_LATEST_PER_TYPE}. Types without readings are left out.`,
  input: {
    patientId: optionalPatientIdField,
    readingType: readingTypeField.optional(),
    category: z.enum(['vital-signs', 'activity']).optional(),
    max: z.number().int().min(1).max(MAX_LATEST_PER_TYPE).optional(),
  },
  output: { patientId: z.number(), readings: z.array(slimReadingShape) },
  reads: ['Observation'],
  async run(args, context) {
    const { patientId, result: rows } = await readVisiblePatient(context.caller, args.patientId, async (id) => {
      const codes = args.readingType === undefined ? undefined : [resolveReadingType(args.readingType).code];
      return latestReadings(context.caller, { patientId: id, max: args.max ?? 1, ...(codes ? { codes } : {}), ...(args.category === undefined ? {} : { category: args.category }) }, context.now);
    });
    context.touched([patientId]);
    const { slim } = await renderReadings(rows, 'slim');
    return { structured: { patientId, readings: slim }, text: [`Latest readings of patient ${patientId}:`, ...slim.map(readingLine)].join('\n') };
  },
});
