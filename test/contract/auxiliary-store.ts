/**
 * THE contract of the auxiliary store port (shared/auxiliary/store/port.ts), run against every
 * adapter: the same calls, the same observable results (returned values, what a later read sees,
 * the refusals and their error values), so the in-memory twin cannot drift from the DynamoDB
 * adapter. A run file (under test/integration, where DynamoDB Local and s3rver are set up) calls
 * `auxiliaryStoreContract` with the adapters to hold to it; an adapter's guards must see the
 * directory these tests write to (the FHIR Sources and patients below).
 *
 * Each test makes its own patient and FHIR Sources and asserts on their segments only: the DynamoDB
 * adapter's table and bucket are shared by the file's tests, the twin is new for each.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deleteAuxiliaryRowsOfSource } from '../../shared/auxiliary/cleanup';
import { INLINE_BODY_LIMIT } from '../../shared/auxiliary/store/dynamo-items';
import { bodyKeys } from '../../shared/auxiliary/store/dynamo-keys';
import { loadResource, persistNew, persistNextVersion } from '../../shared/auxiliary/persist';
import type { IndexRow, ResourceRow } from '../../shared/auxiliary/rows';
import { useAuxiliaryStore } from '../../shared/auxiliary/store/current';
import { UpstreamIdTaken, type AuxiliaryStore, type Segment } from '../../shared/auxiliary/store/port';
import { deleteFhirSource } from '../../shared/directory/fhir-sources';
import type { DataSource, Id } from '../../shared/directory/model';
import type { SearchIndex } from '../../shared/fhir/search';
import { HttpError } from '../../shared/http/errors';
import { makeDataSource, makeFhirSource, makePatient } from '../support/directory';

export type AuxiliaryAdapter = [name: string, make: () => AuxiliaryStore];

const missing = 987_654_321;
const ORIGIN = 'https://contract.test';

/** Instants a second apart, later with each call, so rows sort by the order they were made in. */
let clock = Date.parse('2024-03-01T08:00:00.000Z');
const instant = () => new Date((clock += 1000)).toISOString();

const indexOf = (code: string): SearchIndex => ({ code: [{ s: 'http://snomed.info/sct', c: code }] });

interface Owner {
  patientId: Id;
  sourceId: Id;
  /** A second FHIR Source of the same patient. */
  otherSourceId: Id;
}

/** A row of an owner, version 1, its body inline. */
function rowOf(owner: Pick<Owner, 'patientId' | 'sourceId'>, extra: Partial<ResourceRow> = {}): ResourceRow {
  const id = extra.id ?? randomUUID();
  const type = extra.type ?? 'Condition';
  return { id, type, patientId: owner.patientId, sourceId: owner.sourceId, version: 1, lastUpdated: instant(), body: JSON.stringify({ resourceType: type, id }), ...extra };
}

/** The row with its body kept apart, under `bodyKey`. */
function apart(row: ResourceRow, bodyKey: string): ResourceRow {
  const { body: _body, ...head } = row;
  return { ...head, bodyKey };
}

/** The index row a row is found by, spelled out (its place is the store's own text). */
function indexRowOf(row: ResourceRow, index: SearchIndex): IndexRow {
  const { body: _body, ...head } = row;
  return { ...head, place: expect.any(String) as unknown as string, idx: JSON.stringify(index) };
}

const stale = () => new HttpError(409, 'Changed meanwhile (contract).', 'conflict');
const ownerGoneOf = (sourceId: Id) => ({ status: 400, message: `Unknown FHIR Source ${sourceId}.`, issues: [{ code: 'not-found' }] });
const upstreamTaken = { status: 409, message: 'A resource with this id was already stored through this FHIR Source.', issues: [{ code: 'duplicate' }] };

/** A Condition whose body is too large for a row. */
const large = () => ({ resourceType: 'Condition', subject: { reference: 'Patient/p' }, code: { text: 'Large' }, note: [{ text: 'n'.repeat(INLINE_BODY_LIMIT + 100) }] });

export function auxiliaryStoreContract(adapters: readonly AuxiliaryAdapter[]): void {
  describe.each(adapters)('auxiliary store: %s', (_name, make) => {
    let device: DataSource;
    let store: AuxiliaryStore;
    let previous: AuxiliaryStore | undefined;
    let owner: Owner;

    beforeAll(async () => {
      device = await makeDataSource({ type: 'patient_app' });
    });
    beforeEach(async () => {
      store = make();
      previous = useAuxiliaryStore(store);
      const patient = await makePatient();
      const [source, other] = [await makeFhirSource({ patient, dataSource: device }), await makeFhirSource({ patient, dataSource: device })];
      owner = { patientId: patient.id, sourceId: source.id, otherSourceId: other.id };
    });
    afterEach(() => void useAuxiliaryStore(previous!));

    const created = async (row: ResourceRow, index = indexOf('1')) => {
      await store.rows.create(row, index);
      return row;
    };
    const idsOf = async (q: Parameters<AuxiliaryStore['rows']['page']>[0]) => (await store.rows.page(q)).rows.map((r) => r.id);
    const segmentIds = (segment: Segment) => idsOf({ segment, descending: true });

    describe('rows', () => {
      it('stores a row and reads it back by id, by ids (in the order given), by its index row and by its upstream id', async () => {
        const a = await created(rowOf(owner, { upstreamId: 'up-1' }), indexOf('a'));
        const b = await created(apart(rowOf(owner, { type: 'Location' }), 'aux/elsewhere.json'), indexOf('b'));
        expect(await store.rows.get(a.id)).toEqual(a);
        expect(await store.rows.get(b.id)).toEqual(b);
        expect(await store.rows.get(randomUUID())).toBeUndefined();
        expect(await store.rows.getMany([b.id, randomUUID(), a.id, b.id])).toEqual([b, a, b]);
        expect(await store.rows.getMany([])).toEqual([]);

        const moved = { ...a, lastUpdated: instant() };
        expect(await store.rows.indexRows([b, moved, a])).toEqual([indexRowOf(b, indexOf('b')), indexRowOf(a, indexOf('a'))]);
        expect(await store.rows.indexRows([])).toEqual([]);

        expect(await store.rows.claimedId(owner.sourceId, 'Condition', 'up-1')).toBe(a.id);
        expect(await store.rows.claimedId(owner.sourceId, 'Location', 'up-1')).toBeUndefined();
        expect(await store.rows.claimedId(owner.otherSourceId, 'Condition', 'up-1')).toBeUndefined();
      });

      it('hands out copies: changing what a read returned does not change the store', async () => {
        const a = await created(rowOf(owner));
        (await store.rows.get(a.id))!.version = 9;
        (await store.rows.getMany([a.id]))[0]!.body = 'changed';
        (await store.rows.indexRows([a]))[0]!.idx = 'changed';
        (await store.rows.page({ segment: { patientId: owner.patientId }, descending: true })).rows[0]!.place = 'changed';
        expect(await store.rows.get(a.id)).toEqual(a);
        expect((await store.rows.page({ segment: { patientId: owner.patientId }, descending: true })).rows).toEqual([indexRowOf(a, indexOf('1'))]);
      });

      it('holds each id once and each upstream id once per source and type, refusing a second without writing it', async () => {
        const a = await created(rowOf(owner, { upstreamId: 'up' }));
        await expect(store.rows.create(rowOf(owner, { id: a.id }), indexOf('2'))).rejects.toMatchObject({ status: 409, message: `Resource id ${a.id} already exists.` });
        // Both taken: the id is what the store reports.
        await expect(store.rows.create(rowOf(owner, { id: a.id, upstreamId: 'up' }), indexOf('2'))).rejects.toMatchObject({ status: 409, message: `Resource id ${a.id} already exists.` });
        const second = rowOf(owner, { upstreamId: 'up' });
        const refused = await store.rows.create(second, indexOf('2')).catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(UpstreamIdTaken);
        expect(refused).toMatchObject(upstreamTaken);
        expect(await store.rows.get(a.id)).toEqual(a);
        expect(await store.rows.get(second.id)).toBeUndefined();
        expect(await segmentIds({ patientId: owner.patientId })).toEqual([a.id]);
        expect(await store.rows.claimedId(owner.sourceId, 'Condition', 'up')).toBe(a.id);

        const otherType = await created(rowOf(owner, { type: 'Procedure', upstreamId: 'up' }));
        const otherSource = await created(rowOf({ ...owner, sourceId: owner.otherSourceId }, { upstreamId: 'up' }));
        expect(await store.rows.claimedId(owner.sourceId, 'Procedure', 'up')).toBe(otherType.id);
        expect(await store.rows.claimedId(owner.otherSourceId, 'Condition', 'up')).toBe(otherSource.id);
      });

      it('writes a row only while its FHIR Source and its patient exist (400 otherwise, nothing written); removal needs neither', async () => {
        const kept = await created(rowOf(owner, { upstreamId: 'kept' }));
        expect(await store.rows.get(kept.id)).toEqual(kept);

        const orphan = rowOf({ patientId: missing, sourceId: owner.sourceId });
        await expect(store.rows.create(orphan, indexOf('1'))).rejects.toMatchObject(ownerGoneOf(owner.sourceId));
        expect(await store.rows.get(orphan.id)).toBeUndefined();

        await deleteFhirSource(owner.sourceId);
        const late = rowOf(owner, { upstreamId: 'late' });
        await expect(store.rows.create(late, indexOf('1'))).rejects.toMatchObject(ownerGoneOf(owner.sourceId));
        expect(await store.rows.get(late.id)).toBeUndefined();
        expect(await store.rows.claimedId(owner.sourceId, 'Condition', 'late')).toBeUndefined();
        // A taken upstream id is reported before the missing source.
        await expect(store.rows.create(rowOf(owner, { upstreamId: 'kept' }), indexOf('1'))).rejects.toBeInstanceOf(UpstreamIdTaken);

        const next = { ...kept, version: 2, lastUpdated: instant() };
        await expect(store.rows.update(kept, next, indexOf('2'), stale)).rejects.toMatchObject(ownerGoneOf(owner.sourceId));
        expect(await store.rows.get(kept.id)).toEqual(kept);
        expect(await segmentIds({ patientId: owner.patientId, sourceId: owner.sourceId })).toEqual([kept.id]);

        await store.rows.remove(kept, stale);
        expect(await store.rows.get(kept.id)).toBeUndefined();
        expect(await segmentIds({ patientId: owner.patientId })).toEqual([]);
      });

      it('replaces a row by its next version: the index row moves with lastUpdated, the claim stays; a stale version is the caller\'s conflict', async () => {
        const v1 = await created(rowOf(owner, { upstreamId: 'up' }), indexOf('1'));
        const v2 = { ...v1, version: 2, lastUpdated: instant(), body: '{"v":2}' };
        await store.rows.update(v1, v2, indexOf('2'), stale);
        expect(await store.rows.get(v1.id)).toEqual(v2);
        expect(await store.rows.indexRows([v1])).toEqual([]);
        expect(await store.rows.indexRows([v2])).toEqual([indexRowOf(v2, indexOf('2'))]);
        expect((await store.rows.page({ segment: { patientId: owner.patientId }, descending: false })).rows).toEqual([indexRowOf(v2, indexOf('2'))]);
        expect(await store.rows.claimedId(owner.sourceId, 'Condition', 'up')).toBe(v1.id);

        const conflict = stale();
        await expect(store.rows.update(v1, { ...v2, version: 2, lastUpdated: instant() }, indexOf('x'), () => conflict)).rejects.toBe(conflict);
        expect(await store.rows.get(v1.id)).toEqual(v2);

        // The same instant again: the index row is replaced where it is.
        const v3 = { ...v2, version: 3, body: '{"v":3}' };
        await store.rows.update(v2, v3, indexOf('3'), stale);
        expect((await store.rows.page({ segment: { patientId: owner.patientId }, descending: true })).rows).toEqual([indexRowOf(v3, indexOf('3'))]);

        await store.rows.remove(v3, stale);
        await expect(store.rows.update(v3, { ...v3, version: 4 }, indexOf('4'), () => conflict)).rejects.toBe(conflict);
        expect(await store.rows.get(v1.id)).toBeUndefined();
      });

      it('removes a row with its index row and claim at the version read; at any other, or once gone, it is the caller\'s conflict', async () => {
        const v1 = await created(rowOf(owner, { upstreamId: 'up' }));
        const v2 = { ...v1, version: 2, lastUpdated: instant() };
        await store.rows.update(v1, v2, indexOf('2'), stale);
        const conflict = stale();
        await expect(store.rows.remove(v1, () => conflict)).rejects.toBe(conflict);
        expect(await store.rows.get(v1.id)).toEqual(v2);

        await store.rows.remove(v2, stale);
        expect(await store.rows.get(v1.id)).toBeUndefined();
        expect(await store.rows.indexRows([v2])).toEqual([]);
        expect(await segmentIds({ patientId: owner.patientId })).toEqual([]);
        expect(await store.rows.claimedId(owner.sourceId, 'Condition', 'up')).toBeUndefined();
        await expect(store.rows.remove(v2, () => conflict)).rejects.toBe(conflict);

        const again = await created(rowOf(owner, { upstreamId: 'up' }));
        expect(await store.rows.claimedId(owner.sourceId, 'Condition', 'up')).toBe(again.id);
      });

      it('lets one of racing creates of an upstream id land, and one of racing updates of a version', async () => {
        const racers = [1, 2, 3, 4].map(() => rowOf(owner, { upstreamId: 'raced' }));
        const creates = await Promise.allSettled(racers.map((row) => store.rows.create(row, indexOf('1'))));
        const winner = racers[creates.findIndex((r) => r.status === 'fulfilled')]!;
        expect(creates.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        creates.forEach((r) => r.status === 'rejected' && expect(r.reason).toBeInstanceOf(UpstreamIdTaken));
        expect(await store.rows.claimedId(owner.sourceId, 'Condition', 'raced')).toBe(winner.id);
        expect(await segmentIds({ patientId: owner.patientId })).toEqual([winner.id]);

        const nexts = [1, 2, 3, 4].map((n) => ({ ...winner, version: 2, lastUpdated: instant(), body: `{"n":${n}}` }));
        const updates = await Promise.allSettled(nexts.map((next) => store.rows.update(winner, next, indexOf('2'), stale)));
        expect(updates.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        expect(await store.rows.get(winner.id)).toEqual(nexts[updates.findIndex((r) => r.status === 'fulfilled')]);
        expect(await segmentIds({ patientId: owner.patientId })).toEqual([winner.id]);
      });

      it('tells a refusal (nothing written) from a failure whose outcome is unknown', async () => {
        const a = await created(rowOf(owner, { upstreamId: 'up' }));
        const failures = [
          await store.rows.create(rowOf(owner, { id: a.id }), indexOf('1')).catch((e: unknown) => e),
          await store.rows.create(rowOf(owner, { upstreamId: 'up' }), indexOf('1')).catch((e: unknown) => e),
          await store.rows.create(rowOf({ ...owner, patientId: missing }), indexOf('1')).catch((e: unknown) => e),
          await store.rows.remove({ ...a, version: 5 }, stale).catch((e: unknown) => e),
        ];
        expect(failures.map((e) => store.rows.refused(e))).toEqual([true, true, true, true]);
        expect(store.rows.refused(Object.assign(new Error('socket hang up'), { name: 'TimeoutError' }))).toBe(false);
      });
    });

    describe('pages', () => {
      /** r1 Condition (source), r2 Location (source), r3 Condition (other source), r4 Condition (source), in that time order. */
      const fill = async () => {
        const other = { ...owner, sourceId: owner.otherSourceId };
        const r1 = await created(rowOf(owner));
        const r2 = await created(rowOf(owner, { type: 'Location' }));
        const r3 = await created(rowOf(other));
        const r4 = await created(rowOf(owner));
        const stranger = await makePatient();
        await created(rowOf({ patientId: stranger.id, sourceId: (await makeFhirSource({ patient: stranger, dataSource: device })).id }));
        return { r1, r2, r3, r4 };
      };

      it('reads a segment in key order (type, then time), either way, by type and by source, and nobody else\'s', async () => {
        const { r1, r2, r3, r4 } = await fill();
        const patient = { patientId: owner.patientId };
        const source = { patientId: owner.patientId, sourceId: owner.sourceId };
        expect(await store.rows.page({ segment: patient, descending: true })).toEqual({ rows: [r2, r4, r3, r1].map((r) => indexRowOf(r, indexOf('1'))) });
        expect(await idsOf({ segment: patient, descending: false })).toEqual([r1.id, r3.id, r4.id, r2.id]);
        expect(await idsOf({ segment: patient, type: 'Condition', descending: true })).toEqual([r4.id, r3.id, r1.id]);
        expect(await idsOf({ segment: patient, type: 'Cond', descending: true })).toEqual([]);
        expect(await idsOf({ segment: source, descending: true })).toEqual([r2.id, r4.id, r1.id]);
        expect(await idsOf({ segment: source, type: 'Condition', descending: false })).toEqual([r1.id, r4.id]);
        expect(await idsOf({ segment: { ...patient, sourceId: owner.otherSourceId }, descending: true })).toEqual([r3.id]);
        expect(await idsOf({ segment: { patientId: missing }, descending: true })).toEqual([]);
      });

      it('pages at a limit, saying where to go on whenever a page is full, and continues after any place', async () => {
        const { r1, r2, r3, r4 } = await fill();
        const patient = { patientId: owner.patientId };
        const first = await store.rows.page({ segment: patient, descending: true, limit: 2 });
        expect(first.rows.map((r) => r.id)).toEqual([r2.id, r4.id]);
        expect(first.nextAfter).toBe(first.rows[1]!.place);
        const second = await store.rows.page({ segment: patient, descending: true, limit: 2, after: first.nextAfter! });
        expect(second.rows.map((r) => r.id)).toEqual([r3.id, r1.id]);
        expect(second.nextAfter).toBe(second.rows[1]!.place);
        expect(await store.rows.page({ segment: patient, descending: true, limit: 2, after: second.nextAfter! })).toEqual({ rows: [] });
        expect((await store.rows.page({ segment: patient, descending: true, limit: 5 })).nextAfter).toBeUndefined();
        // Places compare as the rows are ordered.
        const places = first.rows.concat(second.rows).map((r) => r.place);
        expect([...places].sort().reverse()).toEqual(places);

        // After the place of a row that is gone: where it was.
        const gone = second.rows[0]!.place;
        await store.rows.remove(r3, stale);
        expect(await idsOf({ segment: patient, descending: true, after: gone })).toEqual([r1.id]);
        expect(await idsOf({ segment: patient, descending: false, after: gone })).toEqual([r4.id, r2.id]);

        const source = { patientId: owner.patientId, sourceId: owner.sourceId };
        const one = await store.rows.page({ segment: source, type: 'Condition', descending: false, limit: 1 });
        expect(one).toEqual({ rows: [indexRowOf(r1, indexOf('1'))], nextAfter: one.rows[0]!.place });
        expect(await idsOf({ segment: source, type: 'Condition', descending: false, after: one.nextAfter! })).toEqual([r4.id]);
        expect(await idsOf({ segment: source, descending: true, after: first.rows[1]!.place })).toEqual([r1.id]);
      });

      it('removes a source\'s rows or a patient\'s with their index rows and claims, counting them; again removes none', async () => {
        const { r1, r2, r3, r4 } = await fill();
        const claimed = await created(rowOf(owner, { upstreamId: 'up' }));
        expect(await store.rows.removeAll({ patientId: owner.patientId, sourceId: owner.sourceId })).toBe(4);
        expect(await store.rows.getMany([r1.id, r2.id, r3.id, r4.id, claimed.id])).toEqual([r3]);
        expect(await store.rows.claimedId(owner.sourceId, 'Condition', 'up')).toBeUndefined();
        expect(await segmentIds({ patientId: owner.patientId })).toEqual([r3.id]);
        expect(await store.rows.removeAll({ patientId: owner.patientId, sourceId: owner.sourceId })).toBe(0);

        expect(await store.rows.removeAll({ patientId: owner.patientId })).toBe(1);
        expect(await store.rows.get(r3.id)).toBeUndefined();
        expect(await store.rows.removeAll({ patientId: owner.patientId })).toBe(0);
      });
    });

    describe('pending bodies and bodies', () => {
      const keyOf = (sourceId: Id, id: string, version = 1) => bodyKeys.object(owner.patientId, sourceId, id, version, 'attempt');

      it('lists a body being written until a row takes it, and the body a row leaves as discarded', async () => {
        const before = new Date().toISOString();
        const id = randomUUID();
        const v1 = apart(rowOf(owner, { id }), keyOf(owner.sourceId, id));
        await store.pending.recordWriting(owner.patientId, v1.bodyKey!);
        const listed = await store.pending.list({ patientId: owner.patientId });
        expect(listed).toEqual([{ bodyKey: v1.bodyKey, state: 'writing', since: expect.any(String) }]);
        expect(listed[0]!.since >= before && listed[0]!.since <= new Date().toISOString()).toBe(true);

        await created(v1);
        expect(await store.pending.list({ patientId: owner.patientId })).toEqual([]);
        const v2 = { ...v1, version: 2, lastUpdated: instant(), bodyKey: keyOf(owner.sourceId, v1.id, 2) };
        await store.pending.recordWriting(owner.patientId, v2.bodyKey);
        await store.rows.update(v1, v2, indexOf('2'), stale);
        expect(await store.pending.list({ patientId: owner.patientId })).toEqual([{ bodyKey: v1.bodyKey, state: 'discarded', since: expect.any(String) }]);
        await store.rows.remove(v2, stale);
        expect((await store.pending.list({ patientId: owner.patientId })).map((e) => [e.bodyKey, e.state])).toEqual([
          [v1.bodyKey, 'discarded'],
          [v2.bodyKey, 'discarded'],
        ]);

        await store.pending.remove(owner.patientId, v1.bodyKey!);
        await store.pending.remove(owner.patientId, v1.bodyKey!);
        expect((await store.pending.list({ patientId: owner.patientId })).map((e) => e.bodyKey)).toEqual([v2.bodyKey]);

        // A refused write leaves its entry as it was.
        const taken = await created(rowOf(owner));
        const refused = apart(rowOf(owner, { id: taken.id }), keyOf(owner.sourceId, taken.id, 7));
        await store.pending.recordWriting(owner.patientId, refused.bodyKey!);
        await expect(store.rows.create(refused, indexOf('1'))).rejects.toMatchObject({ status: 409 });
        expect((await store.pending.list({ patientId: owner.patientId })).map((e) => [e.bodyKey, e.state])).toContainEqual([refused.bodyKey, 'writing']);
      });

      it("lists and forgets a source's entries apart from the patient's others", async () => {
        const mine = [keyOf(owner.sourceId, 'b'), keyOf(owner.sourceId, 'a')];
        const others = [keyOf(owner.otherSourceId, 'c')];
        for (const key of [...mine, ...others]) await store.pending.recordWriting(owner.patientId, key);
        const source = { patientId: owner.patientId, sourceId: owner.sourceId };
        expect((await store.pending.list(source)).map((e) => e.bodyKey)).toEqual([...mine].sort());
        expect((await store.pending.list({ patientId: owner.patientId })).map((e) => e.bodyKey)).toEqual([...mine, ...others].sort());
        await store.pending.forget(source);
        expect((await store.pending.list({ patientId: owner.patientId })).map((e) => e.bodyKey)).toEqual(others);
        await store.pending.forget({ patientId: owner.patientId });
        expect(await store.pending.list({ patientId: owner.patientId })).toEqual([]);
      });

      it('keeps a body by key until it is removed, and removes a segment\'s bodies by their prefix', async () => {
        const [a, b, c] = [keyOf(owner.sourceId, 'a'), keyOf(owner.sourceId, 'b'), keyOf(owner.otherSourceId, 'c')];
        for (const key of [a, b, c]) await store.bodies.put(key, JSON.stringify({ key }));
        expect(JSON.parse(await store.bodies.get(a))).toEqual({ key: a });
        await expect(store.bodies.get(keyOf(owner.sourceId, 'none'))).rejects.toMatchObject({ name: 'NoSuchKey' });
        await store.bodies.remove(a);
        await store.bodies.remove(a);
        await expect(store.bodies.get(a)).rejects.toMatchObject({ name: 'NoSuchKey' });

        expect(await store.bodies.removeAll({ patientId: owner.patientId, sourceId: owner.sourceId })).toBe(1);
        await expect(store.bodies.get(b)).rejects.toMatchObject({ name: 'NoSuchKey' });
        expect(JSON.parse(await store.bodies.get(c))).toEqual({ key: c });
        expect(await store.bodies.removeAll({ patientId: owner.patientId })).toBe(1);
        expect(await store.bodies.removeAll({ patientId: owner.patientId })).toBe(0);
      });
    });

    describe('through the domain', () => {
      const head = () => ({ id: randomUUID(), type: 'Condition', patientId: owner.patientId, sourceId: owner.sourceId });

      it('keeps a large body apart and loads it back; the next version inline deletes the old object', async () => {
        const first = await persistNew(head(), large(), ORIGIN);
        expect(first.row.bodyKey).toMatch(new RegExp(`^aux/${owner.patientId}/${owner.sourceId}/${first.row.id}/1\\.`));
        expect(first.row.body).toBeUndefined();
        expect(await loadResource((await store.rows.get(first.row.id))!)).toEqual(first.resource);
        expect(await store.pending.list({ patientId: owner.patientId })).toEqual([]);

        const second = await persistNextVersion(first.row, { resourceType: 'Condition', code: { text: 'Small' } }, ORIGIN, stale);
        expect(await store.rows.get(first.row.id)).toEqual(second.row);
        expect(second.row.bodyKey).toBeUndefined();
        await expect(store.bodies.get(first.row.bodyKey!)).rejects.toMatchObject({ name: 'NoSuchKey' });
        expect(await store.pending.list({ patientId: owner.patientId })).toEqual([]);
      });

      it("deleting a source's data takes its rows, bodies and entries; then a write through it is refused and leaves no body", async () => {
        const big = await persistNew(head(), large(), ORIGIN);
        const small = await persistNew({ ...head(), upstreamId: 'up' }, { resourceType: 'Condition', code: { text: 'Small' } }, ORIGIN);
        const elsewhere = await persistNew({ ...head(), sourceId: owner.otherSourceId }, large(), ORIGIN);
        await store.pending.recordWriting(owner.patientId, `${bodyKeys.ofSource(owner.patientId, owner.sourceId)}left.json`);

        await deleteFhirSource(owner.sourceId);
        expect(await deleteAuxiliaryRowsOfSource(owner.sourceId, owner.patientId)).toEqual({ rows: 2, bodies: 1 });
        expect(await store.rows.getMany([big.row.id, small.row.id, elsewhere.row.id])).toEqual([elsewhere.row]);
        expect(await store.pending.list({ patientId: owner.patientId })).toEqual([]);
        expect(await loadResource(elsewhere.row)).toEqual(elsewhere.resource);

        await expect(persistNew(head(), large(), ORIGIN)).rejects.toMatchObject(ownerGoneOf(owner.sourceId));
        expect(await store.bodies.removeAll({ patientId: owner.patientId, sourceId: owner.sourceId })).toBe(0);
        expect(await store.pending.list({ patientId: owner.patientId })).toEqual([]);
      });
    });
  });
}
