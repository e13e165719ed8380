/**
 * THE key builders of the auxiliary table and of the bodies bucket. Item kinds:
 *
 * - resource `R#<uuid> / R`: the stored resource (its JSON, or the S3 key of a large one), its
 *   owner (patient, FHIR Source), version and upstream id. A read by id is one GetItem.
 * - index `P#<patientId> / <Type>#<lastUpdated>#<uuid>`, local-index key
 *   `srcSk = <sourceId>#<Type>#<lastUpdated>#<uuid>`: the search index values of the resource.
 *   A patient's rows of a type are one Query, newest update first; a source's rows one Query on
 *   `bySource`. The sort key changes with each update (written in the same transaction).
 * - upstream claim `U#<sourceId>#<Type>#<upstream id> / U`: the submitted id, unique per source
 *   and type, so a re-posted resource updates its row instead of duplicating it.
 * - pending body `B#<patientId> / <object key>`: an S3 object that no row points at, being written
 *   or to be deleted (see `../pending-bodies.ts`).
 *
 * Bodies too large for an item live at `aux/<patientId>/<sourceId>/<uuid>/<version>.<attempt>.json`:
 * an object is never overwritten (each write attempt is a new key: two writers racing to the same
 * next version must not share an object, or the loser's cleanup would delete the winner's body),
 * and a source's or a patient's objects share a prefix, so deleting them is a sweep that also
 * finds leftovers of interrupted writes (which the pending bodies list as well).
 */
import { keyText, type Key } from '../../store/directory-keys';
import type { Id } from '../../directory/model';

export type { Key };

export const SOURCE_INDEX = 'bySource';

export const auxiliaryKeys = {
  resource: (id: string): Key => ({ pk: `R#${id}`, sk: 'R' }),
  patientPartition: (patientId: Id) => `P#${patientId}`,
  /** Sort key of an index item; `lastUpdated` is an ISO instant in UTC, so keys sort by time. */
  indexSk: (type: string, lastUpdated: string, id: string) => `${type}#${lastUpdated}#${id}`,
  /** A key (or key prefix) of the patient partition as the `bySource` index has it: the source first. */
  onSource: (sourceId: Id, key: string) => `${sourceId}#${key}`,
  /** Prefix of a type's index items in a patient partition. */
  typePrefix: (type: string) => `${type}#`,
  pendingPartition: (patientId: Id) => `B#${patientId}`,
  pendingBody: (patientId: Id, bodyKey: string): Key => ({ pk: auxiliaryKeys.pendingPartition(patientId), sk: bodyKey }),
  upstreamClaim: (sourceId: Id, type: string, upstreamId: string): Key => ({
    pk: `U#${sourceId}#${type}#${keyText(upstreamId)}`,
    sk: 'U',
  }),
};

export const bodyKeys = {
  /** `attempt` tells apart the writes of one version (URL-safe text, e.g. random). */
  object: (patientId: Id, sourceId: Id, id: string, version: number, attempt: string) => `aux/${patientId}/${sourceId}/${id}/${version}.${attempt}.json`,
  ofSource: (patientId: Id, sourceId: Id) => `aux/${patientId}/${sourceId}/`,
  ofPatient: (patientId: Id) => `aux/${patientId}/`,
  /** The prefix of a segment's objects: one source's, or all of a patient's. */
  ofSegment: (segment: { patientId: Id; sourceId?: Id }): string =>
    segment.sourceId === undefined ? bodyKeys.ofPatient(segment.patientId) : bodyKeys.ofSource(segment.patientId, segment.sourceId),
};
