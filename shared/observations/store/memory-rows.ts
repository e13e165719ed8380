/**
 * The twin's readings: per patient by `header.uuid`, found by id too, handed out as copies, and read
 * one page at a time in the orders the port names (`ReadingsQuery`), by the readings' own values.
 */
import { copy, innerMap, nestedEntries } from '../../store/memory';
import type { ReadingFacts, StoredObservation } from '../model';
import type { PageStart, ReadingFilter, ReadingsPage, ReadingsQuery } from './port';

/** A reading's place in a read's order: undated (1) or not (0), its time, its id. */
type Place = readonly [number, number, number];

/** Where the next page starts: after the reading at this place. */
interface After {
  place: Place;
}

function placeOf(q: ReadingsQuery, o: StoredObservation): Place {
  if (q.order === 'updated') return [0, Date.parse(o.lastUpdated), o.id];
  return o.effective ? [0, o.effective.start, o.id] : [1, 0, o.id];
}

const comparePlaces = (a: Place, b: Place): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

const within = (value: number, range: { from?: number; to?: number } | undefined) =>
  range !== undefined && (range.from === undefined || value >= range.from) && (range.to === undefined || value <= range.to);

/** Whether the read takes the reading: its code, then its time (dated) or id (undated) within the bounds. */
function takes(q: ReadingsQuery, o: StoredObservation): boolean {
  if (q.order === 'effective' && q.codeId !== undefined && o.codeId !== q.codeId) return false;
  const [undated, time, id] = placeOf(q, o);
  return undated ? within(id, q.undated) : within(time, q.time);
}

export function rowTable() {
  const byPatient = new Map<number, Map<string, StoredObservation>>();
  /** Id -> where its reading is. */
  const byId = new Map<number, { patientId: number; uuid: string }>();

  /** The patient's readings the read takes, in its order. */
  const ordered = (q: ReadingsQuery): StoredObservation[] => {
    const direction = q.ascending ? 1 : -1;
    return [...(byPatient.get(q.patientId)?.values() ?? [])].filter((o) => takes(q, o)).sort((a, b) => direction * comparePlaces(placeOf(q, a), placeOf(q, b)));
  };

  return {
    get: (patientId: number, uuid: string) => byPatient.get(patientId)?.get(uuid),
    ofId(id: number) {
      const at = byId.get(id);
      return at && byPatient.get(at.patientId)?.get(at.uuid);
    },
    put(o: StoredObservation) {
      innerMap(byPatient, o.patientId).set(o.uuid, copy(o));
      byId.set(o.id, { patientId: o.patientId, uuid: o.uuid });
    },
    /** Removes the patient's readings; returns them. */
    removePatient(patientId: number): StoredObservation[] {
      const rows = [...(byPatient.get(patientId)?.values() ?? [])];
      byPatient.delete(patientId);
      for (const row of rows) byId.delete(row.id);
      return rows;
    },
    /** As a Query page: a page that stopped at its limit names where the next starts, even when none follows. */
    page(q: ReadingsQuery, limit: number | undefined, start?: PageStart, filter?: ReadingFilter): ReadingsPage {
      const direction = q.ascending ? 1 : -1;
      const after = (start as unknown as After | undefined)?.place;
      // A filter's test of values alone goes first, as the block store applies it: a search whose test of values is wrong shows here too.
      const kept = (o: StoredObservation) => !filter || (filter.keepValues?.(o.codeId, copy(o).values) ?? true) && filter.keep(copy(o));
      const following = ordered(q).filter((o) => (after === undefined || direction * comparePlaces(placeOf(q, o), after) > 0) && kept(o));
      const rows = limit === undefined ? following : following.slice(0, limit);
      const last = limit !== undefined && rows.length === limit && rows.length > 0 ? rows[rows.length - 1] : undefined;
      return { readings: rows.map(copy), next: last ? ({ place: placeOf(q, last) } satisfies After as unknown as PageStart) : undefined };
    },
    /** As a count: the readings the read takes that `test` accepts, shown only their facts (no uuid; no payload unless `withPayload`). */
    count: (q: ReadingsQuery, test?: (facts: ReadingFacts) => boolean, withPayload = false): number =>
      ordered(q).filter(({ data, uuid: _uuid, ...facts }) => !test || test(copy(withPayload ? { ...facts, data } : facts))).length,
    /** The readings by patient and uuid, and where each id leads, for a test's look (`holding`). */
    held: { readings: () => nestedEntries(byPatient), readingIds: () => byId },
  };
}
