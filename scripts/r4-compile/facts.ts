/**
 * What R4 -> R5 path matching cannot find, one row per fact, each with its reason: the team's own
 * reading of the differences between the two releases. `npm run fhir:compile` (scripts/r4-compile.ts)
 * derives everything else by path and type from the two releases' StructureDefinitions, then applies
 * these rows on top, and checks each: `from` must be an R4 element, `to` an R5 element.
 *
 * Datatype changes at a matched or renamed path need no row: the converter turns an R4 Reference
 * into a CodeableReference's `.reference`, a CodeableConcept into its `.concept`, a code into a
 * Coding or a CodeableConcept (with `coding.system` below), and a single value into a list.
 */

export interface ConversionFact {
  /**
   * R4 element path from the type's root; a choice element without `[x]` (`MedicationRequest.medication`);
   * or a part of an R4 datatype value (`Medication.amount.numerator`): only that part is carried.
   */
  from: string;
  /** Only for this R4 type of a choice element (`CodeableConcept` of `medication[x]`). */
  fromType?: string;
  /**
   * R5 element path from the type's root (a choice element without `[x]`; it may run through an R5
   * datatype: `Location.contact.telecom`), or null: no R5 element, so dropped unless `inExtensionOf`
   * carries it in a cross-version extension. On a backbone, the
   * R5 node its parent went to (`Condition.evidence` -> `Condition`) lifts it: R5 has no node for it,
   * and its children go where their own rows say.
   */
  to: string | null;
  /**
   * A condition on the source value, in the cross-version maps' own notation: `s` is the R4 value,
   * `s.<child>` one of its children; only `=` and `!=` against a quoted literal, optionally in
   * parentheses (`(s = 'allergy')`). A row with any other condition is not compiled (and said so).
   */
  when?: string;
  /**
   * Where HL7's R4 -> R5 maps disagree: `drops` on a row that carries a value the maps drop;
   * `carries` on a `to: null` row that drops a value the maps carry (because the result would not
   * be valid R5: the reason says why). Absent: the row follows the maps.
   */
  hl7?: 'drops' | 'carries';
  /** When a code becomes a Coding or CodeableConcept: the system (and display) of the coding built. */
  coding?: { system: string; display?: string };
  /**
   * Constants R5 requires beside the converted value, which the maps set as fixed values (a unit R4
   * implied, a mode R4 expressed by the element's name): each is written at its R5 path when this
   * fact converts a value, unless a value is there already.
   */
  set?: ReadonlyArray<{ to: string; value: string | number | boolean | Record<string, unknown> }>;
  /**
   * On a `to: null` row: the value goes into the standard cross-version extension
   * `http://hl7.org/fhir/4.0/StructureDefinition/extension-<R4 path>` of the element named here:
   * itself, or an ancestor whose extension holds it as a sub-extension (UseExtensionFromAncestor in
   * the R4-for-R5 lookup of HL7's `hl7.fhir.uv.xver` definitions, where R5 kept the ancestor's other
   * children). For an element R5 removed (the lookup says UseExtension), and for one whose R5
   * element R4's values cannot fill validly (R5 requires what R4 lacks), so that the value is kept,
   * not dropped. The extension goes on the R5 node the named element's parent went to; its value is
   * the R4 value converted as any value is, a backbone a complex extension whose sub-extensions are
   * named by its children (docs/r4-import.md#cross-version-extensions). On a datatype element, facts
   * on its parts (`Medication.amount.numerator`) still carry those parts to their R5 elements.
   */
  inExtensionOf?: string;
  reason: string;
}

/*
 * Grouped by type (resources, then datatypes), sorted by `from` within a type. A type's rows replace its
 * default rule, so a choice element redirected for one type lists its other types too. Rows marked `hl7`
 * disagree with the HL7 R4->R5 maps (see the field); the rest follow those maps. Every element of a stored
 * type that R5 has no rule for has a row here saying why (the compiler refuses a stored type without). No rows for
 * value-set translations (codes pass through unchanged), nor for the Contributor type (R5 has none: an
 * Extension.value[x] or Parameters.parameter.value[x] of it has no rule and is reported).
 */
export const CONVERSION_FACTS: readonly ConversionFact[] = [
  // AllergyIntolerance: recorder/asserter became participants; type became a CodeableConcept.
  {
    from: 'AllergyIntolerance.asserter',
    to: 'AllergyIntolerance.participant.actor',
    set: [{ to: 'AllergyIntolerance.participant.function', value: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/provenance-participant-type', code: 'author', display: 'Author' }] } }],
    reason: 'R5 replaced asserter with a participant (function author) whose actor is this reference.',
  },
  {
    from: 'AllergyIntolerance.recorder',
    to: 'AllergyIntolerance.participant.actor',
    set: [{ to: 'AllergyIntolerance.participant.function', value: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/provenance-participant-type', code: 'enterer', display: 'Enterer' }] } }],
    reason: 'R5 replaced recorder with a participant (function enterer) whose actor is this reference.',
  },
  {
    from: 'AllergyIntolerance.type',
    when: "(s = 'allergy')",
    to: 'AllergyIntolerance.type',
    coding: { system: 'http://hl7.org/fhir/allergy-intolerance-type', display: 'Allergy' },
    reason: 'R5 made type a CodeableConcept bound to the same codes.',
  },
  {
    from: 'AllergyIntolerance.type',
    when: "(s = 'intolerance')",
    to: 'AllergyIntolerance.type',
    coding: { system: 'http://hl7.org/fhir/allergy-intolerance-type', display: 'Intolerance' },
    reason: 'R5 made type a CodeableConcept bound to the same codes.',
  },
  // CarePlan: author renamed, activity outcome/reference renamed, inline activity.detail removed.
  {
    from: 'CarePlan.activity.detail',
    to: null,
    inExtensionOf: 'CarePlan.activity.detail',
    reason: 'R5 removed the inline activity detail (planned activities are separate request resources, which an import of one CarePlan cannot create); the cross-version extension keeps it on the activity.',
  },
  {
    from: 'CarePlan.activity.outcomeCodeableConcept',
    to: 'CarePlan.activity.performedActivity',
    reason: 'R5 merged the activity outcome code and reference into one CodeableReference list, performedActivity.',
  },
  {
    from: 'CarePlan.activity.outcomeReference',
    to: 'CarePlan.activity.performedActivity',
    reason: 'R5 merged the activity outcome code and reference into one CodeableReference list, performedActivity.',
  },
  {
    from: 'CarePlan.activity.reference',
    to: 'CarePlan.activity.plannedActivityReference',
    reason: 'R5 renamed activity.reference to plannedActivityReference.',
  },
  { from: 'CarePlan.author', to: 'CarePlan.custodian', reason: 'R5 renamed author to custodian (the responsible party).' },
  // CareTeam: reason merged, participant.period renamed, encounter removed.
  { from: 'CareTeam.encounter', to: null, inExtensionOf: 'CareTeam.encounter', reason: 'R5 removed CareTeam.encounter; the cross-version extension keeps it.' },
  {
    from: 'CareTeam.participant.period',
    to: 'CareTeam.participant.coverage',
    reason: 'R5 replaced participant.period with coverage[x] (Period or Timing).',
  },
  {
    from: 'CareTeam.reasonCode',
    to: 'CareTeam.reason',
    reason: 'R5 merged reasonCode and reasonReference into one CodeableReference list.',
  },
  {
    from: 'CareTeam.reasonReference',
    to: 'CareTeam.reason',
    reason: 'R5 merged reasonCode and reasonReference into one CodeableReference list.',
  },
  // Condition: recorder/asserter became participants; evidence became a CodeableReference list.
  {
    from: 'Condition.asserter',
    to: 'Condition.participant.actor',
    set: [{ to: 'Condition.participant.function', value: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/provenance-participant-type', code: 'author', display: 'Author' }] } }],
    reason: 'R5 replaced asserter with a participant (function author) whose actor is this reference.',
  },
  {
    from: 'Condition.evidence',
    to: 'Condition',
    reason: 'R5 made evidence a CodeableReference list: the R4 backbone has no R5 node; its codes and references become the entries.',
  },
  {
    from: 'Condition.evidence.code',
    to: 'Condition.evidence',
    reason: 'R5 made evidence a CodeableReference list; each evidence code becomes one entry.',
  },
  {
    from: 'Condition.evidence.detail',
    to: 'Condition.evidence',
    reason: 'R5 made evidence a CodeableReference list; each evidence reference becomes one entry.',
  },
  {
    from: 'Condition.recorder',
    to: 'Condition.participant.actor',
    set: [{ to: 'Condition.participant.function', value: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/provenance-participant-type', code: 'enterer', display: 'Enterer' }] } }],
    reason: 'R5 replaced recorder with a participant (function enterer) whose actor is this reference.',
  },
  // Coverage: string ids became Identifiers; payor removed.
  {
    from: 'Coverage.payor',
    to: null,
    reason: 'R5 has no payor; the payer is split into insurer and paymentBy.party with narrower meanings, so the value is dropped and reported.',
  },
  // DiagnosticReport: imagingStudy generalised to study.
  {
    from: 'DiagnosticReport.imagingStudy',
    to: 'DiagnosticReport.study',
    hl7: 'drops',
    reason: 'R5 generalised imagingStudy to study, which still allows ImagingStudy.',
  },
  // DocumentReference: context backbone flattened onto the root; masterIdentifier, authenticator and format folded into R5 elements.
  {
    from: 'DocumentReference.authenticator',
    to: 'DocumentReference.attester.party',
    set: [{ to: 'DocumentReference.attester.mode', value: { coding: [{ system: 'http://hl7.org/fhir/composition-attestation-mode', code: 'professional' }] } }],
    reason: 'R5 replaced authenticator with an attester entry (mode professional) whose party is this reference.',
  },
  {
    from: 'DocumentReference.content.format',
    to: 'DocumentReference.content.profile.value',
    reason: 'R5 replaced content.format with content.profile, whose value[x] takes the Coding.',
  },
  {
    from: 'DocumentReference.context',
    to: 'DocumentReference',
    reason: 'R5 flattened the context backbone: its children moved to the resource.',
  },
  {
    from: 'DocumentReference.context.encounter',
    to: 'DocumentReference.context',
    reason: 'R5 flattened the context backbone; context is now the list of encounter (or appointment / episode) references.',
  },
  {
    from: 'DocumentReference.context.event',
    to: 'DocumentReference.event',
    reason: 'R5 moved context.event to the root as a CodeableReference list.',
  },
  {
    from: 'DocumentReference.context.facilityType',
    to: 'DocumentReference.facilityType',
    reason: 'R5 moved context.facilityType to the root.',
  },
  { from: 'DocumentReference.context.period', to: 'DocumentReference.period', reason: 'R5 moved context.period to the root.' },
  {
    from: 'DocumentReference.context.practiceSetting',
    to: 'DocumentReference.practiceSetting',
    reason: 'R5 moved context.practiceSetting to the root.',
  },
  {
    from: 'DocumentReference.context.related',
    to: null,
    inExtensionOf: 'DocumentReference.context',
    reason: "R5 has no counterpart for context.related (R5's context takes only Appointment, Encounter and EpisodeOfCare references, and related may point at any resource); it goes into the cross-version extension of the context, whose other children R5 kept.",
  },
  {
    from: 'DocumentReference.context.sourcePatientInfo',
    to: null,
    inExtensionOf: 'DocumentReference.context',
    reason: "R5 has no counterpart for context.sourcePatientInfo (the patient record at the source system; R5's subject is who the document is about, another meaning); it goes into the cross-version extension of the context, whose other children R5 kept.",
  },
  {
    from: 'DocumentReference.masterIdentifier',
    to: 'DocumentReference.identifier',
    reason: 'R5 removed masterIdentifier; it becomes one more identifier.',
  },
  {
    from: 'DocumentReference.relatesTo.code',
    to: 'DocumentReference.relatesTo.code',
    coding: { system: 'http://hl7.org/fhir/document-relationship-type' },
    reason: 'R5 made relatesTo.code a CodeableConcept; the R4 code keeps its code system.',
  },
  // Encounter: period/individual/physicalType renamed, hospitalization became admission, reason a backbone, histories removed.
  {
    from: 'Encounter.classHistory',
    to: null,
    inExtensionOf: 'Encounter.classHistory',
    reason: 'R5 removed classHistory (history is kept in EncounterHistory resources); the cross-version extension keeps it.',
  },
  { from: 'Encounter.diagnosis.rank', to: null, inExtensionOf: 'Encounter.diagnosis.rank', reason: 'R5 removed diagnosis.rank; the cross-version extension keeps it.' },
  {
    from: 'Encounter.hospitalization',
    to: 'Encounter.admission',
    reason: 'R5 renamed hospitalization to admission; its children keep their names except the three moved to the root.',
  },
  {
    from: 'Encounter.hospitalization.dietPreference',
    to: 'Encounter.dietPreference',
    hl7: 'drops',
    reason: 'R5 moved dietPreference from hospitalization to the root.',
  },
  {
    from: 'Encounter.hospitalization.specialArrangement',
    to: 'Encounter.specialArrangement',
    hl7: 'drops',
    reason: 'R5 moved specialArrangement from hospitalization to the root.',
  },
  {
    from: 'Encounter.hospitalization.specialCourtesy',
    to: 'Encounter.specialCourtesy',
    hl7: 'drops',
    reason: 'R5 moved specialCourtesy from hospitalization to the root.',
  },
  { from: 'Encounter.location.physicalType', to: 'Encounter.location.form', reason: 'R5 renamed location.physicalType to location.form.' },
  {
    from: 'Encounter.participant.individual',
    to: 'Encounter.participant.actor',
    reason: 'R5 renamed participant.individual to participant.actor.',
  },
  { from: 'Encounter.period', to: 'Encounter.actualPeriod', reason: 'R5 renamed period to actualPeriod.' },
  {
    from: 'Encounter.reasonCode',
    to: 'Encounter.reason.value',
    hl7: 'drops',
    reason: 'R5 made reason a backbone whose value is a CodeableReference list.',
  },
  {
    from: 'Encounter.reasonReference',
    to: 'Encounter.reason.value',
    hl7: 'drops',
    reason: 'R5 made reason a backbone whose value is a CodeableReference list.',
  },
  {
    from: 'Encounter.statusHistory',
    to: null,
    inExtensionOf: 'Encounter.statusHistory',
    reason: 'R5 removed statusHistory (history is kept in EncounterHistory resources); the cross-version extension keeps it.',
  },
  // FamilyMemberHistory: reason merged.
  {
    from: 'FamilyMemberHistory.reasonCode',
    to: 'FamilyMemberHistory.reason',
    reason: 'R5 merged reasonCode and reasonReference into one CodeableReference list.',
  },
  {
    from: 'FamilyMemberHistory.reasonReference',
    to: 'FamilyMemberHistory.reason',
    reason: 'R5 merged reasonCode and reasonReference into one CodeableReference list.',
  },
  // Goal: outcome merged, expressedBy renamed.
  {
    from: 'Goal.expressedBy',
    to: 'Goal.source',
    hl7: 'drops',
    reason: 'R5 renamed expressedBy to source (same meaning and targets).',
  },
  { from: 'Goal.outcomeCode', to: 'Goal.outcome', reason: 'R5 merged outcomeCode and outcomeReference into one CodeableReference list.' },
  {
    from: 'Goal.outcomeReference',
    to: 'Goal.outcome',
    reason: 'R5 merged outcomeCode and outcomeReference into one CodeableReference list.',
  },
  // Immunization: reason merged, reaction.detail renamed, programEligibility became a backbone, recorded/education removed.
  // No row: protocolApplied.doseNumber[x] / seriesDoses[x] go by path to R5's string, the positiveInt form as its decimal text
  // (the integer-to-string conversion; the HL7 map drops that form, but R5 requires doseNumber).
  { from: 'Immunization.education', to: null, inExtensionOf: 'Immunization.education', reason: 'R5 removed education; the cross-version extension keeps it.' },
  {
    from: 'Immunization.programEligibility',
    to: null,
    inExtensionOf: 'Immunization.programEligibility',
    reason: "R5 made programEligibility a backbone that requires both program (the funding program) and programStatus (the patient's eligibility); R4 holds only the eligibility (its codes are those R5 binds to programStatus). The maps put it in program, which misplaces it and leaves the required programStatus missing (invalid R5); the cross-version extension of the R4 element keeps the concept instead.",
  },
  {
    from: 'Immunization.reaction.detail',
    to: 'Immunization.reaction.manifestation',
    reason: 'R5 replaced reaction.detail with manifestation, a CodeableReference to the Observation.',
  },
  {
    from: 'Immunization.reasonCode',
    to: 'Immunization.reason',
    reason: 'R5 merged reasonCode and reasonReference into one CodeableReference list.',
  },
  {
    from: 'Immunization.reasonReference',
    to: 'Immunization.reason',
    reason: 'R5 merged reasonCode and reasonReference into one CodeableReference list.',
  },
  { from: 'Immunization.recorded', to: null, inExtensionOf: 'Immunization.recorded', reason: 'R5 removed recorded; the cross-version extension keeps it.' },
  {
    from: 'Immunization.reportOrigin',
    to: 'Immunization.informationSource',
    hl7: 'drops',
    reason: 'R5 replaced reportOrigin with informationSource, a CodeableReference bound to the same value set.',
  },
  // Location: physicalType renamed; telecom and hours moved into R5 datatypes.
  { from: 'Location.availabilityExceptions', to: null, reason: 'R5 has no free-text availability exceptions on Location.' },
  {
    from: 'Location.hoursOfOperation',
    to: 'Location.hoursOfOperation.availableTime',
    reason: 'R5 made hoursOfOperation an Availability: each R4 entry becomes one availableTime of it (daysOfWeek and allDay keep their names).',
  },
  {
    from: 'Location.hoursOfOperation.closingTime',
    to: 'Location.hoursOfOperation.availableTime.availableEndTime',
    reason: 'R5 renamed closingTime to availableEndTime inside the Availability.',
  },
  {
    from: 'Location.hoursOfOperation.openingTime',
    to: 'Location.hoursOfOperation.availableTime.availableStartTime',
    reason: 'R5 renamed openingTime to availableStartTime inside the Availability.',
  },
  { from: 'Location.physicalType', to: 'Location.form', reason: 'R5 renamed physicalType to form.' },
  {
    from: 'Location.telecom',
    to: 'Location.contact.telecom',
    reason: 'R5 moved telecom into contact, an ExtendedContactDetail: the telecoms become those of one contact.',
  },
  // Medication: manufacturer, form and amount renamed.
  {
    from: 'Medication.amount',
    to: null,
    inExtensionOf: 'Medication.amount',
    hl7: 'drops',
    reason: 'R5 replaced the amount Ratio with totalVolume, a Quantity, which has no place for the denominator (the package the amount is of); the maps drop the denominator (their cross-version lookup renames amount to totalVolume and names no extension for the Ratio), while the cross-version extension of the R4 element keeps the whole Ratio beside totalVolume.',
  },
  {
    from: 'Medication.amount.numerator',
    to: 'Medication.totalVolume',
    reason: 'R5 replaced the amount Ratio with totalVolume, a Quantity: the numerator is carried, as in the maps (the whole Ratio also goes into the cross-version extension of Medication.amount).',
  },
  { from: 'Medication.form', to: 'Medication.doseForm', reason: 'R5 renamed form to doseForm.' },
  {
    from: 'Medication.manufacturer',
    to: 'Medication.marketingAuthorizationHolder',
    reason: 'R5 renamed manufacturer to marketingAuthorizationHolder.',
  },
  // MedicationDispense: statusReason and context renamed, detectedIssue removed.
  { from: 'MedicationDispense.context', to: 'MedicationDispense.encounter', reason: 'R5 renamed context to encounter.' },
  {
    from: 'MedicationDispense.detectedIssue',
    to: null,
    inExtensionOf: 'MedicationDispense.detectedIssue',
    reason: 'R5 removed detectedIssue (DetectedIssue points at the dispense instead); the cross-version extension keeps it.',
  },
  {
    from: 'MedicationDispense.statusReason',
    to: 'MedicationDispense.notPerformedReason',
    reason: 'R5 renamed statusReason[x] to notPerformedReason, a CodeableReference.',
  },
  // MedicationRequest: reason merged, dispenser renamed, reported split, instantiates/detectedIssue removed.
  {
    from: 'MedicationRequest.detectedIssue',
    to: null,
    inExtensionOf: 'MedicationRequest.detectedIssue',
    reason: 'R5 removed detectedIssue (DetectedIssue points at the request instead); the cross-version extension keeps it.',
  },
  {
    from: 'MedicationRequest.dispenseRequest.performer',
    to: 'MedicationRequest.dispenseRequest.dispenser',
    reason: 'R5 renamed dispenseRequest.performer to dispenser.',
  },
  {
    from: 'MedicationRequest.instantiatesCanonical',
    to: null,
    inExtensionOf: 'MedicationRequest.instantiatesCanonical',
    reason: 'R5 removed instantiatesCanonical from MedicationRequest; the cross-version extension keeps it.',
  },
  {
    from: 'MedicationRequest.instantiatesUri',
    to: null,
    inExtensionOf: 'MedicationRequest.instantiatesUri',
    reason: 'R5 removed instantiatesUri from MedicationRequest; the cross-version extension keeps it.',
  },
  {
    from: 'MedicationRequest.reasonCode',
    to: 'MedicationRequest.reason',
    reason: 'R5 merged reasonCode and reasonReference into one CodeableReference list.',
  },
  {
    from: 'MedicationRequest.reasonReference',
    to: 'MedicationRequest.reason',
    reason: 'R5 merged reasonCode and reasonReference into one CodeableReference list.',
  },
  {
    from: 'MedicationRequest.reported',
    fromType: 'Reference',
    to: 'MedicationRequest.informationSource',
    hl7: 'drops',
    reason: 'R5 kept reported as a boolean only; the reporting party moved to informationSource.',
  },
  {
    from: 'MedicationRequest.reported',
    fromType: 'boolean',
    to: 'MedicationRequest.reported',
    reason: 'R5 kept reported as a boolean only.',
  },
  // PractitionerRole: telecom and availability moved into R5 datatypes.
  {
    from: 'PractitionerRole.availabilityExceptions',
    to: null,
    inExtensionOf: 'PractitionerRole.availabilityExceptions',
    reason: 'R5 has no free-text availability exceptions on PractitionerRole; the cross-version extension keeps them.',
  },
  {
    from: 'PractitionerRole.availableTime',
    to: 'PractitionerRole.availability.availableTime',
    reason: 'R5 moved availableTime into availability, an Availability: each entry becomes one availableTime of it.',
  },
  {
    from: 'PractitionerRole.notAvailable',
    to: 'PractitionerRole.availability.notAvailableTime',
    reason: 'R5 moved notAvailable into availability, an Availability: each entry becomes one notAvailableTime of it.',
  },
  {
    from: 'PractitionerRole.telecom',
    to: 'PractitionerRole.contact.telecom',
    reason: 'R5 moved telecom into contact, an ExtendedContactDetail: the telecoms become those of one contact.',
  },
  // Procedure: reason, used and complication merged into CodeableReferences, performed renamed, asserter removed.
  {
    from: 'Procedure.asserter',
    to: null,
    inExtensionOf: 'Procedure.asserter',
    reason: 'R5 removed asserter (reported[x], a secondhand record or who reported it, and recorder, who entered it, have other meanings); the cross-version extension keeps it.',
  },
  {
    from: 'Procedure.complicationDetail',
    to: 'Procedure.complication',
    hl7: 'drops',
    reason: 'R5 merged complication and complicationDetail into one CodeableReference list.',
  },
  { from: 'Procedure.performed', to: 'Procedure.occurrence', reason: 'R5 renamed performed[x] to occurrence[x].' },
  {
    from: 'Procedure.reasonCode',
    to: 'Procedure.reason',
    reason: 'R5 merged reasonCode and reasonReference into one CodeableReference list.',
  },
  {
    from: 'Procedure.reasonReference',
    to: 'Procedure.reason',
    reason: 'R5 merged reasonCode and reasonReference into one CodeableReference list.',
  },
  { from: 'Procedure.usedCode', to: 'Procedure.used', reason: 'R5 merged usedCode and usedReference into one CodeableReference list.' },
  {
    from: 'Procedure.usedReference',
    to: 'Procedure.used',
    reason: 'R5 merged usedCode and usedReference into one CodeableReference list.',
  },
  // Provenance: reason renamed.
  {
    from: 'Provenance.reason',
    to: 'Provenance.authorization',
    hl7: 'drops',
    reason: 'R5 renamed reason to authorization, a CodeableReference bound to the same PurposeOfUse value set.',
  },
  // ServiceRequest: reason and location merged, orderDetail and patientInstruction became backbones.
  {
    from: 'ServiceRequest.locationCode',
    to: 'ServiceRequest.location',
    reason: 'R5 merged locationCode and locationReference into one CodeableReference list.',
  },
  {
    from: 'ServiceRequest.locationReference',
    to: 'ServiceRequest.location',
    reason: 'R5 merged locationCode and locationReference into one CodeableReference list.',
  },
  {
    from: 'ServiceRequest.orderDetail',
    to: null,
    inExtensionOf: 'ServiceRequest.orderDetail',
    reason: 'R5 made orderDetail a backbone whose parameter (code and value, 1..*) R4 cannot supply, so the concept cannot go into it (the StructureMap puts it in parameterFocus, leaving the required parameter missing); the cross-version lookup keeps it in the extension instead.',
  },
  {
    from: 'ServiceRequest.patientInstruction',
    to: 'ServiceRequest.patientInstruction.instruction',
    reason: 'R5 made patientInstruction a backbone list; the text is its instruction[x] (markdown).',
  },
  {
    from: 'ServiceRequest.reasonCode',
    to: 'ServiceRequest.reason',
    reason: 'R5 merged reasonCode and reasonReference into one CodeableReference list.',
  },
  {
    from: 'ServiceRequest.reasonReference',
    to: 'ServiceRequest.reason',
    reason: 'R5 merged reasonCode and reasonReference into one CodeableReference list.',
  },
  // Specimen: processing.procedure renamed; the container description moved to a Device.
  {
    from: 'Specimen.container',
    to: null,
    inExtensionOf: 'Specimen.container',
    reason: 'R5 describes the container in a referenced Device (container.device, required), which R4 cannot supply: the maps carry only specimenQuantity into a container that would then be invalid; the cross-version extension of the R4 container keeps all of it (identifier, description, type, capacity, specimenQuantity, additive), and with it the contained resource its additive refers to.',
  },
  {
    from: 'Specimen.processing.procedure',
    to: 'Specimen.processing.method',
    reason: 'R5 renamed processing.procedure to processing.method.',
  },
  // Practitioner: communication became a backbone.
  {
    from: 'Practitioner.communication',
    to: 'Practitioner.communication.language',
    reason: 'R5 made communication a backbone; the R4 concept is its language.',
  },
  // Organization: contact, telecom and address moved into the ExtendedContactDetail datatype.
  {
    from: 'Organization.address',
    to: 'Organization.contact.address',
    hl7: 'drops',
    reason: 'R5 removed Organization.address: addresses live in contact, an ExtendedContactDetail, one address each.',
  },
  {
    from: 'Organization.contact',
    to: null,
    reason: 'R5 made contact an ExtendedContactDetail datatype (name a list, purpose, telecom, address); the conversion does not turn an R4 backbone into an R5 datatype, so the value is dropped and reported.',
  },
  {
    from: 'Organization.telecom',
    to: 'Organization.contact.telecom',
    hl7: 'drops',
    reason: 'R5 removed Organization.telecom: telecoms live in contact, an ExtendedContactDetail.',
  },
  // Device: deviceName renamed, specialization became conformsTo, property values merged, several elements removed.
  {
    from: 'Device.deviceName',
    to: 'Device.name',
    reason: 'R5 renamed deviceName to name (type codes pass unchanged; several R4 codes are not in the R5 set).',
  },
  { from: 'Device.deviceName.name', to: 'Device.name.value', reason: 'R5 renamed deviceName.name to name.value.' },
  { from: 'Device.distinctIdentifier', to: null, reason: 'R5 removed distinctIdentifier.' },
  { from: 'Device.patient', to: null, reason: 'R5 removed Device.patient (the link is a DeviceAssociation).' },
  { from: 'Device.property.valueCode', to: 'Device.property.value', reason: 'R5 merged valueQuantity and valueCode into one value[x].' },
  {
    from: 'Device.property.valueQuantity',
    to: 'Device.property.value',
    reason: 'R5 merged valueQuantity and valueCode into one value[x].',
  },
  {
    from: 'Device.specialization',
    to: 'Device.conformsTo',
    hl7: 'drops',
    reason: 'R5 replaced specialization with conformsTo.',
  },
  {
    from: 'Device.specialization.systemType',
    to: 'Device.conformsTo.specification',
    hl7: 'drops',
    reason: 'R5 replaced specialization.systemType with conformsTo.specification.',
  },
  { from: 'Device.statusReason', to: null, reason: 'R5 removed statusReason (availabilityStatus has a different meaning).' },
  // Group: actual replaced by membership.
  {
    from: 'Group.actual',
    to: null,
    reason: 'R5 replaced the boolean actual with the membership code (enumerated / definitional), a value mapping, not a path.',
  },
  // Attachment: size widened.
  // Dosage: the CodeableConcept form of asNeeded moved to asNeededFor.
  {
    from: 'Dosage.asNeeded',
    fromType: 'CodeableConcept',
    to: 'Dosage.asNeededFor',
    reason: 'R5 kept asNeeded as a boolean only; the precondition concept moved to the asNeededFor list.',
  },
  { from: 'Dosage.asNeeded', fromType: 'boolean', to: 'Dosage.asNeeded', reason: 'R5 kept asNeeded as a boolean only.' },
  // RelatedArtifact: url removed.
  {
    from: 'RelatedArtifact.url',
    to: null,
    reason: 'R5 removed url; the nearest place, document.url, is the address of an Attachment, which the maps do not fill from it either.',
  },
  // SampledData: period renamed.
  {
    from: 'SampledData.period',
    to: 'SampledData.interval',
    set: [{ to: 'SampledData.intervalUnit', value: 'ms' }],
    reason: 'R5 renamed period to interval, with the unit (ms in R4) now explicit in intervalUnit.',
  },
  // Substance: R5 made instance a required flag; the maps default it to true and lift the R4 instance's expiry and quantity.
  {
    from: 'Substance.code',
    to: 'Substance.code',
    set: [{ to: 'Substance.instance', value: true }],
    reason: 'R5 requires instance (is this a specific amount, not a kind); the maps default it to true.',
  },
  {
    from: 'Substance.instance',
    to: 'Substance',
    reason: 'R5 made instance a flag; the R4 instance backbone has no R5 node, and its children moved to the resource.',
  },
  { from: 'Substance.instance.expiry', to: 'Substance.expiry', reason: 'R5 moved the expiry of an instance to the resource.' },
  { from: 'Substance.instance.quantity', to: 'Substance.quantity', reason: 'R5 moved the quantity of an instance to the resource.' },
  { from: 'Substance.instance.identifier', to: 'Substance.identifier', reason: 'R5 keeps one identifier list for the substance.' },
];
