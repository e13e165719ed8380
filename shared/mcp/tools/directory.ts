/**
 * The tools about people and studies: the caller's studies, a study's metadata and patients, a
 * patient's demographics. Each reads through the management API's own domain functions
 * (shared/management/), so each answers what `/api/v1/` answers the caller, in fewer fields: no
 * contact details (an assistant answering about readings needs none, so none enter its context).
 */
import * as z from 'zod';
import { isPractitioner } from '../../auth/caller';
import { studyScope } from '../../auth/scope';
import { patientViewFor } from '../../management/patients';
import { listScopeRequests, listStudies, listStudyPatients, readStudy } from '../../management/studies';
import { countPosition, encodeToolCursor, toolCursorPosition } from '../cursor';
import { cursorField, optionalPatientIdField, pageSizeField, studyIdField } from '../fields';
import { practitionerOnly, visiblePatient, visibleStudy } from '../access';
import { defineTool, ToolRefusal } from '../tool';

/** Studies or patients in one answer, at most (and when no pageSize is given). */
export const MAX_LIST_ITEMS = 100;
export const DEFAULT_LIST_ITEMS = 25;

const organizationShape = z.object({ id: z.number(), name: z.string().nullable() });
const studyShape = z.object({ id: z.number(), name: z.string(), description: z.string(), organization: organizationShape });
const patientSummaryShape = z.object({ id: z.number(), nameGiven: z.string(), nameFamily: z.string(), birthDate: z.string().nullable() });

type StudyView = Awaited<ReturnType<typeof readStudy>>;
const studyOf = (s: StudyView) => ({
  id: s.id,
  name: s.name,
  description: s.description,
  organization: { id: s.organization.id, name: 'name' in s.organization ? (s.organization.name ?? null) : null },
});

/** Page-number paging behind an opaque cursor; a page past the end (the list shrank meanwhile) is a refusal to start again. */
async function pageAt<T>(read: (page: number, size: number) => Promise<T>, page: number, size: number): Promise<T> {
  try {
    return await read(page, size);
  } catch (error) {
    if (page > 1) throw new ToolRefusal('The list changed since this cursor was given: leave cursor out to start again.');
    throw error;
  }
}

const nextOf = (tool: string, args: Record<string, unknown>, page: number, size: number, count: number) =>
  page * size < count ? { nextCursor: encodeToolCursor(tool, args, page + 1) } : {};

export const listStudiesTool = defineTool({
  name: 'list_studies',
  title: 'List studies',
  description: `The studies the signed-in user may see (a practitioner: their organizations' studies; a patient: the studies they take part in), with how many there are. At most ${MAX_LIST_ITEMS} per answer; nextCursor continues.`,
  input: { pageSize: pageSizeField(DEFAULT_LIST_ITEMS, MAX_LIST_ITEMS), cursor: cursorField },
  output: { count: z.number(), studies: z.array(studyShape), nextCursor: z.string().optional() },
  reads: ['Group'],
  async run(args, { caller }) {
    const size = args.pageSize ?? DEFAULT_LIST_ITEMS;
    const page = countPosition(toolCursorPosition('list_studies', args, args.cursor), 1);
    const found = await pageAt((p, s) => listStudies(caller, undefined, { page: p, pageSize: s }), page, size);
    const studies = found.items.map(studyOf);
    return {
      structured: { count: found.count, studies, ...nextOf('list_studies', args, page, size, found.count) },
      text: [`${found.count} studies${found.count > studies.length ? ` (${studies.length} shown)` : ''}.`, ...studies.map((s) => `- study ${s.id}: ${s.name}`)].join('\n'),
    };
  },
});

export const getStudyTool = defineTool({
  name: 'get_study',
  title: 'Get a study',
  description: 'A study\'s metadata: its name, description, organization and the reading types it collects; for a practitioner also how many patients are enrolled. A study the user may not see answers as an unknown id.',
  input: { studyId: studyIdField },
  output: {
    study: studyShape.extend({
      readingTypes: z.array(z.object({ code: z.string(), display: z.string() })),
      enrolledPatients: z.number().nullable().describe('null for a patient, who is never told who else takes part'),
    }),
  },
  reads: ['Group'],
  async run({ studyId }, { caller }) {
    await visibleStudy(caller, studyId);
    const [view, requests] = await Promise.all([readStudy(caller, studyId), listScopeRequests(caller, studyId)]);
    const enrolled = isPractitioner(caller) ? (await listStudyPatients(caller, studyId, { page: 1, pageSize: 1 })).count : null;
    const readingTypes = requests.map((r) => ({ code: r.scopeCode.codingCode, display: r.scopeCode.text }));
    const study = { ...studyOf(view), readingTypes, enrolledPatients: enrolled };
    return {
      structured: { study },
      text: [`Study ${study.id}: ${study.name}`, `Organization: ${study.organization.name ?? study.organization.id}`, `Reading types: ${readingTypes.map((t) => t.code).join(', ') || 'none'}`, ...(enrolled === null ? [] : [`Enrolled patients: ${enrolled}`])].join('\n'),
    };
  },
});

export const listStudyPatientsTool = defineTool({
  name: 'list_study_patients',
  title: 'List the patients of a study',
  description: `Practitioners only: the patients enrolled in a study, with how many there are. At most ${MAX_LIST_ITEMS} per answer; nextCursor continues.`,
  input: { studyId: studyIdField, pageSize: pageSizeField(DEFAULT_LIST_ITEMS, MAX_LIST_ITEMS), cursor: cursorField },
  output: { count: z.number(), patients: z.array(patientSummaryShape), nextCursor: z.string().optional() },
  reads: ['Group', 'Patient'],
  async run(args, context) {
    const caller = practitionerOnly(context.caller, "list a study's patients");
    await visibleStudy(caller, args.studyId);
    const size = args.pageSize ?? DEFAULT_LIST_ITEMS;
    const page = countPosition(toolCursorPosition('list_study_patients', args, args.cursor), 1);
    const found = await pageAt((p, s) => listStudyPatients(caller, args.studyId, { page: p, pageSize: s }), page, size);
    const patients = found.items.map((p) => ({ id: p.id, nameGiven: p.nameGiven, nameFamily: p.nameFamily, birthDate: p.birthDate }));
    context.touched(patients.map((p) => p.id));
    return {
      structured: { count: found.count, patients, ...nextOf('list_study_patients', args, page, size, found.count) },
      text: [`${found.count} patients in study ${args.studyId}${found.count > patients.length ? ` (${patients.length} shown)` : ''}.`, ...patients.map((p) => `- patient ${p.id}: ${p.nameGiven} ${p.nameFamily}`)].join('\n'),
    };
  },
});

export const getPatientTool = defineTool({
  name: 'get_patient',
  title: 'Get a patient',
  description: "A patient's demographics: name, birth date, identifiers, and the organizations and studies of theirs the user may see. A signed-in patient may leave patientId out. A patient the user may not see answers as an unknown id.",
  input: { patientId: optionalPatientIdField },
  output: {
    patient: patientSummaryShape.extend({
      identifiers: z.array(z.object({ system: z.string(), value: z.string() })),
      organizations: z.array(organizationShape),
      studyIds: z.array(z.number()),
    }),
  },
  reads: ['Patient'],
  async run({ patientId }, { caller, touched }) {
    const record = await visiblePatient(caller, patientId);
    const [view, studyIds] = await Promise.all([patientViewFor(caller, record), studyScope(caller, { patient: record.id })]);
    touched([view.id]);
    const patient = {
      id: view.id,
      nameGiven: view.nameGiven,
      nameFamily: view.nameFamily,
      birthDate: view.birthDate,
      identifiers: view.identifiers,
      organizations: view.organizations.map((o) => ({ id: o.id, name: o.name })),
      studyIds,
    };
    return {
      structured: { patient },
      text: [`Patient ${patient.id}: ${patient.nameGiven} ${patient.nameFamily}`, `Birth date: ${patient.birthDate ?? 'unknown'}`, `Organizations: ${patient.organizations.map((o) => o.name).join(', ') || 'none visible'}`, `Studies: ${studyIds.join(', ') || 'none visible'}`].join('\n'),
    };
  },
});
