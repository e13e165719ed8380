/**
 * Native mobile-health observations as the rest of the service sees them: plain values, the
 * Base64 payload kept exactly as uploaded (the source of truth), the lifted effective time beside
 * it. Stored rows are immutable: a reading is written once and never updated in place.
 */
import type { Id } from '../directory/model';
import type { EffectiveTime } from '../omh/effective-time';

/** `Observation.identifier` as stored: a value, usually with its system. */
export interface ObservationIdentifier {
  system?: string;
  value: string;
}

/** A validated reading, ready to be stored. */
export interface NewObservation {
  patientId: Id;
  codeId: Id;
  /** The `personal_device` data source named by `Observation.device`. */
  deviceId: Id;
  /** `Observation.status` as uploaded (an R5 observation-status code). */
  status: string;
  /** `Observation.identifier` values; each (system, value) is unique across the whole store. */
  identifiers: ObservationIdentifier[];
  /** `valueAttachment.data` byte for byte. */
  data: string;
  /** `header.uuid` in lower case: the reading's identity for the patient (a re-post is the same reading). */
  uuid: string;
  /** Undefined when the payload has no time frame. */
  effective: EffectiveTime | undefined;
  /**
   * The payload's `{value, unit}` members, lifted on upload as the effective time is
   * (docs/payloads.md#the-values-inside-a-payload). Undefined only for a reading an earlier layout
   * stored before values were lifted: the move to layout 3 lifts them (`npm run migrate:observations`).
   */
  values?: KeptValue[];
}

/**
 * A lifted value as a reading keeps it: the member (an index into the schema's quantities), the
 * number as uploaded, and the unit as uploaded only when it is not the member's first allowed
 * unit (most readings are in it), so a heart rate adds four bytes to its row.
 */
export interface KeptValue {
  member: number;
  value: number;
  unit?: string;
}

/** A reading's identity: its patient and `header.uuid` (a re-post is the same reading). */
export type ReadingKey = Pick<NewObservation, 'patientId' | 'uuid'>;

/** A reading's identity as one text, to match readings to each other. */
export const readingKeyText = (r: ReadingKey): string => `${r.patientId}\u0000${r.uuid}`;

export interface StoredObservation extends NewObservation {
  id: number;
  /** When the row was written (ISO 8601 UTC with milliseconds); `meta.lastUpdated`. */
  lastUpdated: string;
}

/**
 * What a search tests and orders a reading by: everything but its payload and `header.uuid`; the
 * payload too where a test reads it (a blood glucose's standard coding follows the specimen it
 * names: a count then asks for it, `withPayload`).
 */
export type ReadingFacts = Omit<StoredObservation, 'data' | 'uuid'> & { data?: string };
