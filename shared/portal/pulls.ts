/**
 * What the portal reads from a hospital (the whole record, docs/portal.md#what-it-reads): one kind
 * of record per type, the Observations split into laboratory results and vital signs, in the order
 * the report lists them. Each kind is one search of the patient's records; a hospital that refuses
 * it unless a category or a status is named gets the narrowed searches here instead, whose results
 * together are the same records (every status of the type, or its usual categories).
 */

export interface RecordKind {
  /** Stable key of the kind (the type, or `laboratory` / `vital-signs`). */
  key: string;
  type: string;
  /** What the patient reads, plural. */
  label: string;
  /** Parameters of the search beyond the patient. */
  search?: Readonly<Record<string, string>>;
  /**
   * Alternatives, tried in order when the plain search is refused: each a set of searches whose
   * results together make the kind (a `status` list naming every status, or one search per category).
   */
  narrowed?: ReadonlyArray<ReadonlyArray<Readonly<Record<string, string>>>>;
}

const byStatus = (...statuses: string[]) => [{ status: statuses.join(',') }];
const byCategory = (...categories: string[]) => categories.map((category) => ({ category }));

/** Every status of the request-like types, R4 and R5 together. */
const REQUEST_STATUSES = ['draft', 'active', 'on-hold', 'revoked', 'completed', 'entered-in-error', 'unknown'];

export const RECORD_KINDS: readonly RecordKind[] = [
  { key: 'Condition', type: 'Condition', label: 'Health problems and diagnoses', narrowed: [byCategory('problem-list-item', 'encounter-diagnosis', 'health-concern')] },
  {
    key: 'MedicationRequest',
    type: 'MedicationRequest',
    label: 'Medicines prescribed',
    narrowed: [byStatus('active', 'on-hold', 'ended', 'stopped', 'completed', 'cancelled', 'entered-in-error', 'draft', 'unknown')],
  },
  {
    key: 'MedicationDispense',
    type: 'MedicationDispense',
    label: 'Medicines handed out',
    narrowed: [byStatus('preparation', 'in-progress', 'cancelled', 'on-hold', 'completed', 'entered-in-error', 'stopped', 'declined', 'unknown')],
  },
  { key: 'AllergyIntolerance', type: 'AllergyIntolerance', label: 'Allergies and intolerances' },
  { key: 'Immunization', type: 'Immunization', label: 'Immunizations', narrowed: [byStatus('completed', 'entered-in-error', 'not-done')] },
  {
    key: 'Procedure',
    type: 'Procedure',
    label: 'Procedures',
    narrowed: [byStatus('preparation', 'in-progress', 'not-done', 'on-hold', 'stopped', 'completed', 'entered-in-error', 'unknown')],
  },
  { key: 'laboratory', type: 'Observation', label: 'Laboratory results', search: { category: 'laboratory' } },
  { key: 'vital-signs', type: 'Observation', label: 'Vital signs', search: { category: 'vital-signs' } },
  {
    key: 'DiagnosticReport',
    type: 'DiagnosticReport',
    label: 'Test and imaging reports',
    narrowed: [byStatus('registered', 'partial', 'preliminary', 'final', 'amended', 'corrected', 'appended', 'cancelled', 'entered-in-error', 'unknown'), byCategory('LAB', 'RAD')],
  },
  { key: 'DocumentReference', type: 'DocumentReference', label: 'Clinical notes and documents', narrowed: [byStatus('current', 'superseded', 'entered-in-error'), byCategory('clinical-note')] },
  {
    key: 'Encounter',
    type: 'Encounter',
    label: 'Visits and stays',
    narrowed: [byStatus('planned', 'arrived', 'triaged', 'in-progress', 'onleave', 'on-hold', 'finished', 'discharged', 'completed', 'cancelled', 'discontinued', 'entered-in-error', 'unknown')],
  },
  { key: 'CarePlan', type: 'CarePlan', label: 'Care plans', narrowed: [byStatus(...REQUEST_STATUSES)] },
  { key: 'CareTeam', type: 'CareTeam', label: 'Care teams', narrowed: [byStatus('proposed', 'active', 'suspended', 'inactive', 'entered-in-error')] },
  { key: 'Goal', type: 'Goal', label: 'Goals' },
  { key: 'ServiceRequest', type: 'ServiceRequest', label: 'Orders and referrals', narrowed: [byStatus(...REQUEST_STATUSES)] },
  { key: 'QuestionnaireResponse', type: 'QuestionnaireResponse', label: 'Questionnaire answers', narrowed: [byStatus('in-progress', 'completed', 'amended', 'entered-in-error', 'stopped')] },
];

/** The types read, Patient first (read for its id only: the service keeps its own patient record). */
export const PULLED_TYPES: readonly string[] = ['Patient', ...new Set(RECORD_KINDS.map((k) => k.type))];

/** The read scopes the portal asks the hospital for, one per type read. */
export const READ_SCOPES: readonly string[] = PULLED_TYPES.map((type) => `patient/${type}.read`);

/** The URL of one search (relative to the hospital's FHIR base). */
export function searchUrl(kind: RecordKind, patient: string, narrowed?: Readonly<Record<string, string>>): string {
  const params = new URLSearchParams({ patient, ...kind.search, ...narrowed });
  return `${kind.type}?${params}`;
}

/**
 * The types a CapabilityStatement says the server offers for search; undefined when it lists none
 * (then every type is tried, and a 404 says it is not offered).
 */
export function offeredTypes(capabilities: unknown): Set<string> | undefined {
  const rest = (capabilities as { rest?: Array<{ resource?: Array<{ type?: unknown; interaction?: Array<{ code?: unknown }> }> }> } | undefined)?.rest;
  const resources = Array.isArray(rest) ? rest.flatMap((r) => (Array.isArray(r.resource) ? r.resource : [])) : [];
  if (resources.length === 0) return undefined;
  const searchable = resources.filter((r) => typeof r.type === 'string' && (!Array.isArray(r.interaction) || r.interaction.some((i) => i.code === 'search-type')));
  return new Set(searchable.map((r) => r.type as string));
}
