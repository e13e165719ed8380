/**
 * What identifies a patient's data in an answer, and the check that an answer shows none of it to
 * a caller who may not see that patient. An answer may repeat what its request said (a 404 naming
 * the id asked for); anything beyond that is a leak.
 */
import { sourceUriPrefix } from '../../shared/fhir/constants';
import type { PatientSide } from './world';

export interface Marker {
  what: string;
  pattern: RegExp;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** `text` as a whole token: not the start or the end of a longer number or word. */
const exactly = (text: string) => new RegExp(`(?<![\\w-])${escape(text)}(?![\\w-])`);

export function markersOf(side: PatientSide, name: string): Marker[] {
  const { patient } = side;
  return [
    { what: `${name}'s patient reference`, pattern: new RegExp(`Patient/${patient.id}(?![\\w-])`) },
    { what: `${name}'s patient id as a field`, pattern: new RegExp(`"patient(Id)?"\\s*:\\s*"?${patient.id}(?!\\d)`) },
    { what: `${name}'s family name`, pattern: exactly(patient.nameFamily!) },
    { what: `${name}'s email`, pattern: exactly(patient.telecomEmail!) },
    { what: `${name}'s identifier`, pattern: exactly(side.identifier.value) },
    // Not the start of an auxiliary row's UUID (`Observation/3f2a...`): a reading's id is a whole number.
    ...side.observationIds.map((id) => ({ what: `${name}'s reading ${id}`, pattern: new RegExp(`Observation/${id}(?![\\w-])`) })),
    ...side.payloads.map((data, i) => ({ what: `${name}'s reading payload ${i}`, pattern: new RegExp(escape(data)) })),
    { what: `${name}'s reading identifier`, pattern: exactly(side.readingIdentifier.value) },
    { what: `${name}'s Condition`, pattern: exactly(side.conditionId) },
    { what: `${name}'s lab Observation`, pattern: exactly(side.labObservationId) },
    { what: `${name}'s FHIR Source URI`, pattern: new RegExp(`${escape(sourceUriPrefix())}${side.source.id}(?!\\d)`) },
  ];
}

/** The markers found in the answer that the request did not itself contain. */
export function leaked(markers: readonly Marker[], request: string, answer: string): string[] {
  return markers.filter((m) => m.pattern.test(answer) && !m.pattern.test(request)).map((m) => m.what);
}
