/**
 * `clinical_record`: a patient's conditions, medications, allergies and clinical observations (lab
 * results and the like) from the auxiliary store, each section a short list, through the typed
 * function of the auxiliary search the FHIR API runs (`findAuxiliary`, the caller's scoping
 * included: a page, the total and an opaque cursor). Items are shown in
 * a few fields; their texts come from the records (an EHR's), are cut to a bounded length, and are
 * data for the assistant, never part of a tool's description.
 */
import * as z from 'zod';
import type { Caller } from '../../auth/caller';
import { findAuxiliary } from '../../auxiliary/search';
import { isObject, type JsonObject } from '../../json';
import { visiblePatient } from '../access';
import { encodeToolCursor, textPosition, toolCursorPosition } from '../cursor';
import { cursorField, optionalPatientIdField } from '../fields';
import { defineTool, ToolRefusal } from '../tool';

/** Items per section in one answer, at most (and when no limit is given). */
export const MAX_CLINICAL_ITEMS = 20;
const DEFAULT_CLINICAL_ITEMS = 5;
/** The longest text of a record shown in an item. */
export const MAX_ITEM_TEXT = 200;

/** The sections, each one auxiliary type. MedicationStatement is not a type the store keeps, so medications are the requests. */
const SECTIONS = [
  { section: 'conditions', type: 'Condition' },
  { section: 'medications', type: 'MedicationRequest' },
  { section: 'allergies', type: 'AllergyIntolerance' },
  { section: 'observations', type: 'Observation' },
] as const;
type Section = (typeof SECTIONS)[number]['section'];
const SECTION_NAMES = SECTIONS.map((s) => s.section) as [Section, ...Section[]];

const itemShape = z.object({
  id: z.string(),
  text: z.string().describe("What the record names (its code's text or display), cut to a bounded length"),
  status: z.string().nullable(),
  date: z.string().nullable(),
  detail: z.string().nullable().describe('A value with its unit, a dosage, a criticality'),
});
type Item = z.infer<typeof itemShape>;

const sectionShape = z.object({ section: z.enum(SECTION_NAMES), resourceType: z.string(), total: z.number().nullable(), items: z.array(itemShape), nextCursor: z.string().optional() });

const cut = (text: string) => (text.length <= MAX_ITEM_TEXT ? text : `${text.slice(0, MAX_ITEM_TEXT - 1)}…`);
const textOf = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? cut(value.trim()) : undefined);

/** A CodeableConcept's words: its text, else its first coding's display, else its first code. */
function conceptText(concept: unknown): string | undefined {
  if (!isObject(concept)) return undefined;
  const codings = Array.isArray(concept.coding) ? concept.coding.filter(isObject) : [];
  return textOf(concept.text) ?? codings.map((c) => textOf(c.display)).find(Boolean) ?? codings.map((c) => textOf(c.code)).find(Boolean);
}

const conceptCode = (concept: unknown) => (isObject(concept) && Array.isArray(concept.coding) ? concept.coding.filter(isObject).map((c) => textOf(c.code)).find(Boolean) : undefined);
const periodStart = (period: unknown) => (isObject(period) ? textOf(period.start) : undefined);

function quantityText(q: unknown): string | undefined {
  if (!isObject(q) || typeof q.value !== 'number') return undefined;
  const unit = textOf(q.unit) ?? textOf(q.code);
  return `${q.value}${unit ? ` ${unit}` : ''}`;
}

/** An item of a section: a few fields of the resource, each bounded. */
function itemOf(type: string, r: JsonObject): Item {
  const id = String(r.id ?? '');
  switch (type) {
    case 'Condition':
      return { id, text: conceptText(r.code) ?? 'condition', status: conceptCode(r.clinicalStatus) ?? null, date: textOf(r.onsetDateTime) ?? periodStart(r.onsetPeriod) ?? textOf(r.recordedDate) ?? null, detail: conceptText(r.severity) ?? null };
    case 'MedicationRequest': {
      const medication = isObject(r.medication) ? conceptText(r.medication.concept) ?? textOf(isObject(r.medication.reference) ? r.medication.reference.display : undefined) : undefined;
      const dosage = Array.isArray(r.dosageInstruction) ? r.dosageInstruction.filter(isObject).map((d) => textOf(d.text)).find(Boolean) : undefined;
      return { id, text: medication ?? 'medication', status: textOf(r.status) ?? null, date: textOf(r.authoredOn) ?? null, detail: dosage ?? null };
    }
    case 'AllergyIntolerance':
      return { id, text: conceptText(r.code) ?? 'allergy', status: conceptCode(r.clinicalStatus) ?? null, date: textOf(r.recordedDate) ?? textOf(r.onsetDateTime) ?? null, detail: textOf(r.criticality) ?? null };
    default:
      return {
        id,
        text: conceptText(r.code) ?? 'observation',
        status: textOf(r.status) ?? null,
        date: textOf(r.effectiveDateTime) ?? periodStart(r.effectivePeriod) ?? textOf(r.issued) ?? null,
        detail: quantityText(r.valueQuantity) ?? textOf(r.valueString) ?? conceptText(r.valueCodeableConcept) ?? null,
      };
  }
}

/** One section's page, with the total and the search's own cursor of the next page. */
async function sectionPage(args: { patientId?: number }, patientId: number, section: (typeof SECTIONS)[number], limit: number, cursor: string | undefined, caller: Caller) {
  const found = await findAuxiliary(caller, { type: section.type, patientId, limit, ...(cursor === undefined ? {} : { cursor }) });
  const items = found.resources.map((r) => itemOf(section.type, r as JsonObject));
  const next = found.cursor;
  // Bound as `run` reads it back: the patient as named and the one section it continues.
  const bound = { patientId: args.patientId, section: section.section };
  return {
    section: section.section,
    resourceType: section.type,
    total: found.total,
    items,
    ...(next ? { nextCursor: encodeToolCursor('clinical_record', bound, next) } : {}),
  };
}

export const clinicalRecordTool = defineTool({
  name: 'clinical_record',
  title: 'Clinical record',
  description: `A patient's clinical record from their connected health systems, as short lists: conditions, medications (prescriptions), allergies and clinical observations (lab results and the like), each with its total. limit items per section (${DEFAULT_CLINICAL_ITEMS} by default, at most ${MAX_CLINICAL_ITEMS}). To read further in one section, name it and pass its nextCursor. Texts come from the records themselves.`,
  input: {
    patientId: optionalPatientIdField,
    section: z.enum(SECTION_NAMES).optional().describe('One section only; every section when left out'),
    limit: z.number().int().min(1).max(MAX_CLINICAL_ITEMS).optional(),
    cursor: cursorField.describe("A section's nextCursor (name that section too)"),
  },
  output: { patientId: z.number(), sections: z.array(sectionShape) },
  reads: ['Condition', 'MedicationRequest', 'AllergyIntolerance', 'Observation'],
  async run(args, context) {
    const patient = await visiblePatient(context.caller, args.patientId);
    if (args.cursor !== undefined && args.section === undefined) throw new ToolRefusal('A cursor continues one section: name the section it came with.');
    const limit = args.limit ?? DEFAULT_CLINICAL_ITEMS;
    const cursor = textPosition(toolCursorPosition('clinical_record', { patientId: args.patientId, section: args.section }, args.cursor));
    const chosen = SECTIONS.filter((s) => args.section === undefined || s.section === args.section);
    const sections = [];
    for (const section of chosen) sections.push(await sectionPage(args, patient.id, section, limit, cursor, context.caller));
    context.touched([patient.id]);
    const lines = sections.flatMap((s) => [`${s.section} (${s.total ?? s.items.length}):`, ...s.items.map((i) => `- ${i.text}${i.status ? ` [${i.status}]` : ''}${i.date ? ` ${i.date}` : ''}${i.detail ? `: ${i.detail}` : ''}`)]);
    return { structured: { patientId: patient.id, sections }, text: [`Clinical record of patient ${patient.id}:`, ...lines].join('\n') };
  },
});
