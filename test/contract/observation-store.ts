/**
 * THE contract of the observation store port (shared/observations/store/port.ts), run against
 * every adapter: the same calls through the domain functions (storing, reading, the search's row
 * streams, span statistics, deletion), the same observable results, so the in-memory twin cannot
 * drift from the DynamoDB adapter. A run file (under test/integration, where DynamoDB Local is set
 * up) calls `observationStoreContract` with the adapters to hold to it.
 *
 * Each test makes its own patients, uuids and identifiers and asserts on those only: the DynamoDB
 * adapter's table is shared by the file's tests, the twin is new for each.
 */
import { randomBytes, randomInt, randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { resetConfig } from '../../shared/config';
import { deletePatientObservations } from '../../shared/observations/delete';
import type { KeptValue, NewObservation, ObservationIdentifier, ReadingFacts, StoredObservation } from '../../shared/observations/model';
import { countReadings, readObservation, readObservations, readReadings, type ReadingFilter, type ReadingsQuery } from '../../shared/observations/read';
import { orderedRows } from '../../shared/observations/search/ordered-rows';
import { runsOf } from '../../shared/observations/search/streams';
import { forgetKnownSpans, knownSpan, raiseSpans, storedSpans } from '../../shared/observations/span-stats';
import { observationStore, useObservationStore } from '../../shared/observations/store/current';
import type { ObservationStore, PageStart } from '../../shared/observations/store/port';
import { storeObservations, type WriteOutcome } from '../../shared/observations/write';

export type ObservationAdapter = [name: string, make: () => ObservationStore];

const HOUR = 3_600_000;
const T0 = Date.UTC(2025, 5, 1);
const newPatient = () => 800_000_000 + randomInt(100_000_000);
const newIdentifier = (system = 'https://contract.test/ids'): ObservationIdentifier => ({ system, value: `v-${randomBytes(4).toString('hex')}` });
const missing = 987_654_321_012;

/** A reading of `patientId`; `at` is its effective hour after T0 (undated when null), `hours` its length. */
function reading(patientId: number, over: Partial<NewObservation> & { at?: number | null; hours?: number } = {}): NewObservation {
  const { at = 0, hours = 0, ...fields } = over;
  const start = at === null ? undefined : T0 + at * HOUR;
  const uuid = randomUUID();
  return {
    patientId,
    codeId: 7,
    deviceId: 3,
    status: 'final',
    identifiers: [],
    data: Buffer.from(`{"header":{"uuid":"${uuid}"}}`).toString('base64'),
    uuid,
    effective: start === undefined ? undefined : hours > 0 ? { kind: 'period', start, end: start + hours * HOUR } : { kind: 'dateTime', start, end: start },
    ...fields,
  };
}

function created(outcome: WriteOutcome | undefined): StoredObservation {
  expect(outcome?.kind).toBe('created');
  return (outcome as Extract<WriteOutcome, { kind: 'created' }>).observation;
}

async function storeOne(input: NewObservation): Promise<StoredObservation> {
  return created((await storeObservations([input]))[0]);
}

/** Every reading of one read (those `filter` keeps), following its pages. */
async function allRows(q: ReadingsQuery, limit?: number, filter?: ReadingFilter): Promise<StoredObservation[]> {
  const rows: StoredObservation[] = [];
  let start: PageStart | undefined;
  do {
    const page = await readReadings(q, limit, start, filter);
    rows.push(...page.readings);
    start = page.next;
  } while (start);
  return rows;
}

const idsOf = (rows: ReadonlyArray<{ id?: unknown }>) => rows.map((r) => r.id as number);
const byId = (a: StoredObservation, b: StoredObservation) => a.id - b.id;

export function observationStoreContract(adapters: readonly ObservationAdapter[]): void {
  describe.each(adapters)('observation store: %s', (_name, make) => {
    let previous: ObservationStore | undefined;
    beforeEach(() => void (previous = useObservationStore(make())));
    afterEach(() => void useObservationStore(previous!));

    describe('storing readings', () => {
      it('stores new readings with fresh increasing ids and one time stamp, readable by id and by ids', async () => {
        const patient = newPatient();
        const inputs = [
          reading(patient, { identifiers: [newIdentifier(), { value: `bare-${randomUUID()}` }] }),
          reading(patient, { at: null, status: 'preliminary' }),
          reading(patient, { at: 5, hours: 3, data: 'not canonical base64!' }),
        ];
        const before = Date.now();
        const stored = (await storeObservations(inputs)).map(created);
        expect(stored.map((o) => o.id)).toEqual([...stored.map((o) => o.id)].sort((a, b) => a - b));
        expect(new Set(stored.map((o) => o.id)).size).toBe(3);
        expect(new Set(stored.map((o) => o.lastUpdated)).size).toBe(1);
        expect(Date.parse(stored[0]!.lastUpdated)).toBeGreaterThanOrEqual(before - 1);
        stored.forEach((o, n) => expect(o).toEqual({ ...inputs[n], id: o.id, lastUpdated: o.lastUpdated }));

        for (const o of stored) expect(await readObservation(o.id)).toEqual(o);
        expect(await readObservation(missing)).toBeUndefined();
        const [a, b, c] = stored;
        expect((await readObservations([c!.id, missing, a!.id, a!.id])).sort(byId)).toEqual([a, c]);
        expect((await readObservations([b!.id])).sort(byId)).toEqual([b]);
        expect(await readObservations([])).toEqual([]);
        expect(await storeObservations([])).toEqual([]);
      });

      it('answers a re-posted reading with the row already stored, and stores nothing more', async () => {
        const patient = newPatient();
        const first = await storeOne(reading(patient, { identifiers: [newIdentifier()] }));
        const again = await storeObservations([{ ...reading(patient, { at: 9, identifiers: [newIdentifier()] }), uuid: first.uuid }]);
        expect(again).toEqual([{ kind: 'existing', observation: first }]);
        expect(idsOf(await allRows({ patientId: patient, order: 'updated', ascending: true, time: {} }))).toEqual([first.id]);

        // The reading's identity is its patient and uuid: another patient's reading with that uuid is another reading.
        const other = await storeOne({ ...reading(newPatient()), uuid: first.uuid });
        expect(other.id).not.toBe(first.id);
        expect(await readObservation(first.id)).toEqual(first);
      });

      it('stores a uuid repeated within one batch once: the later copies answer with the first', async () => {
        const patient = newPatient();
        const a = reading(patient);
        const b = reading(patient, { identifiers: [newIdentifier()] });
        const outcomes = await storeObservations([a, { ...a, data: 'b3RoZXI=' }, b, { ...b, identifiers: [newIdentifier()] }, { ...a, effective: undefined }]);
        expect(outcomes.map((o) => o.kind)).toEqual(['created', 'existing', 'created', 'existing', 'existing']);
        const [first, second] = [created(outcomes[0]), created(outcomes[2])];
        expect(outcomes[1]).toEqual({ kind: 'existing', observation: first });
        expect(outcomes[3]).toEqual({ kind: 'existing', observation: second });
        expect(outcomes[4]).toEqual({ kind: 'existing', observation: first });
        expect(idsOf(await allRows({ patientId: patient, order: 'updated', ascending: true, time: {} }))).toEqual([first.id, second.id]);
      });

      it('refuses an identifier another observation holds (of any patient), naming the holder; nothing of the reading is stored', async () => {
        const [patient, other] = [newPatient(), newPatient()];
        const held = newIdentifier();
        const holder = await storeOne(reading(patient, { identifiers: [held] }));
        const free = newIdentifier();
        const refused = reading(other, { identifiers: [free, held] });
        expect(await storeObservations([refused])).toEqual([{ kind: 'conflict', identifier: held, heldBy: holder.id }]);
        expect(await allRows({ patientId: other, order: 'updated', ascending: true, time: {} })).toEqual([]);
        // Its other identifier was not claimed, and the same value under another system is another identifier.
        expect((await storeObservations([reading(other, { identifiers: [free, { system: 'https://other.test', value: held.value }] })]))[0]!.kind).toBe('created');
        expect(await readObservation(holder.id)).toEqual(holder);
      });

      it('gives an identifier repeated within one batch to the first reading; the later ones conflict', async () => {
        const patient = newPatient();
        const shared = newIdentifier();
        const outcomes = await storeObservations([reading(patient, { identifiers: [shared] }), reading(patient, { identifiers: [newIdentifier(), shared] }), reading(newPatient(), { identifiers: [shared] })]);
        const first = created(outcomes[0]);
        expect(outcomes.slice(1)).toEqual([
          { kind: 'conflict', identifier: shared, heldBy: first.id },
          { kind: 'conflict', identifier: shared, heldBy: first.id },
        ]);
      });

      it('writes a batch in rounds: a reading whose keys repeat an earlier one meets what the earlier round stored', async () => {
        const patient = newPatient();
        const shared = newIdentifier();
        const a = reading(patient, { identifiers: [shared] });
        const b = reading(patient, { identifiers: [shared] });
        const c = { ...reading(patient, { identifiers: [newIdentifier()] }), uuid: b.uuid };
        const outcomes = await storeObservations([a, b, c]);
        const stored = created(outcomes[2]);
        expect(outcomes[0]!.kind).toBe('created');
        expect(outcomes[1]).toEqual({ kind: 'existing', observation: stored });
      });

      it('stores the readings of one hour that several uploads send at once, each once, whichever upload sent it', async () => {
        const patient = newPatient();
        const hour = Array.from({ length: 120 }, (_, i) => reading(patient, { at: 3, identifiers: i % 10 === 0 ? [newIdentifier()] : [] }));
        for (const [n, r] of hour.entries()) if (r.effective) r.effective = { kind: 'dateTime', start: r.effective.start + n * 30_000, end: r.effective.start + n * 30_000 };
        // Four uploads of overlapping halves: every reading sent twice, by two of them at once.
        const uploads = [hour.slice(0, 60), hour.slice(30, 90), hour.slice(60, 120), [...hour.slice(90, 120), ...hour.slice(0, 30)]];
        const outcomes = await Promise.all(uploads.map((batch) => storeObservations(batch)));
        const byUuid = new Map<string, number[]>();
        outcomes.flat().forEach((o) => {
          expect(['created', 'existing']).toContain(o.kind);
          const stored = (o as Extract<WriteOutcome, { kind: 'created' | 'existing' }>).observation;
          byUuid.set(stored.uuid, [...(byUuid.get(stored.uuid) ?? []), stored.id]);
        });
        expect(byUuid.size).toBe(120);
        for (const ids of byUuid.values()) expect(new Set(ids).size).toBe(1);
        expect(outcomes.flat().filter((o) => o.kind === 'created')).toHaveLength(120);
        const rows = await allRows({ patientId: patient, order: 'effective', ascending: true, time: {} });
        expect(rows.map((r) => r.uuid)).toEqual(hour.map((r) => r.uuid));
        expect(await countReadings({ patientId: patient, order: 'updated', ascending: true, time: {} })).toBe(120);
      });

      it('answers a reading posted again under another code or hour with the one stored, wherever that is', async () => {
        const patient = newPatient();
        const first = await storeOne(reading(patient, { at: 2, codeId: 8 }));
        const elsewhere = [{ ...reading(patient, { at: 40, codeId: 9 }), uuid: first.uuid }, { ...reading(patient, { at: null }), uuid: first.uuid }];
        expect(await storeObservations(elsewhere)).toEqual([
          { kind: 'existing', observation: first },
          { kind: 'existing', observation: first },
        ]);
        expect(idsOf(await allRows({ patientId: patient, order: 'effective', ascending: true, time: {}, undated: {} }))).toEqual([first.id]);
      });

      it('keeps an hour of large readings (more than a block holds) whole and in order', async () => {
        const patient = newPatient();
        // 40 readings of about 12 KB each that do not compress: several times what one block keeps.
        const large = Array.from({ length: 40 }, (_, i) => {
          const r = reading(patient, { at: 5 });
          r.effective = { kind: 'dateTime', start: r.effective!.start + i * 60_000, end: r.effective!.start + i * 60_000 };
          r.data = randomBytes(12_000).toString('base64');
          return r;
        });
        const stored: StoredObservation[] = [];
        for (let i = 0; i < large.length; i += 7) stored.push(...(await storeObservations(large.slice(i, i + 7))).map(created));
        expect(idsOf(await allRows({ patientId: patient, order: 'effective', ascending: true, time: {} }, 9))).toEqual(idsOf(stored));
        expect(idsOf(await allRows({ patientId: patient, order: 'effective', ascending: false, time: {} }, 9))).toEqual(idsOf(stored).reverse());
        expect(await readObservation(stored[23]!.id)).toEqual(stored[23]);
        expect((await readObservations(idsOf(stored))).sort(byId)).toEqual(stored);
        expect((await storeObservations(large.slice(0, 10))).every((o) => o.kind === 'existing')).toBe(true);
      });

      it('answers 413 for a reading too large to store and stores the others', async () => {
        const patient = newPatient();
        const outcomes = await storeObservations([reading(patient), reading(patient, { data: 'A'.repeat(520_000) }), reading(patient)]);
        expect(outcomes.map((o) => o.kind)).toEqual(['created', 'failed', 'created']);
        expect(outcomes[1]).toEqual({ kind: 'failed', status: 413, reason: expect.stringMatching(/^The reading is too large to store \(\d+ bytes; at most 380000\)\.$/) });
        expect(await allRows({ patientId: patient, order: 'updated', ascending: true, time: {} })).toHaveLength(2);
      });

      it('hands out copies: changing what a call returned or was given does not change the store', async () => {
        const patient = newPatient();
        const input = reading(patient, { identifiers: [newIdentifier()] });
        const [outcome] = await storeObservations([input]);
        const stored = structuredClone(created(outcome));
        input.identifiers.push(newIdentifier());
        created(outcome).identifiers.push(newIdentifier());
        const read = (await readObservation(stored.id))!;
        read.identifiers.length = 0;
        read.data = 'changed';
        (await readObservations([stored.id]))[0]!.identifiers.push(newIdentifier());
        const [row] = await allRows({ patientId: patient, order: 'effective', ascending: true, time: {}, undated: {} });
        (row!.identifiers as ObservationIdentifier[]).push(newIdentifier());
        row!.id = -1;
        const [existing] = await storeObservations([{ ...input, identifiers: [] }]);
        (existing as Extract<WriteOutcome, { kind: 'existing' }>).observation.identifiers.push(newIdentifier());

        expect(await readObservation(stored.id)).toEqual(stored);
        expect(await allRows({ patientId: patient, order: 'effective', ascending: true, time: {}, undated: {} })).toEqual([expect.objectContaining({ id: stored.id, identifiers: stored.identifiers })]);
      });
    });

    describe("reading a patient's rows", () => {
      /** Effective hours (null: undated) and hours of the last update's order are the ids' order. */
      async function patientWithRows() {
        const patient = newPatient();
        const codes = [7, 8, 7, 8, 7, 7];
        const hours = [3, 1, null, 2, 1, null];
        const stored = (await storeObservations(hours.map((at, n) => reading(patient, { at, codeId: codes[n]! })))).map(created);
        await storeOne(reading(newPatient(), { at: 1 }));
        await raiseSpans(new Map([[patient, 10 * HOUR]]));
        const id = (n: number) => stored[n]!.id;
        return { patient, stored, id };
      }

      it("reads a patient's readings in each order, forwards and backwards, page by page, each once", async () => {
        const { patient, id } = await patientWithRows();
        const every = { time: {}, undated: {} };
        const orders: Array<[string, Omit<ReadingsQuery, 'ascending'>, number[]]> = [
          // Start, then id; undated readings after every dated one.
          ['effective', { patientId: patient, order: 'effective', ...every }, [id(1), id(4), id(3), id(0), id(2), id(5)]],
          ['effective, code 7', { patientId: patient, order: 'effective', codeId: 7, ...every }, [id(4), id(0), id(2), id(5)]],
          ['effective, code 8', { patientId: patient, order: 'effective', codeId: 8, ...every }, [id(1), id(3)]],
          // One upload, so one time stamp: id order.
          ['updated', { patientId: patient, order: 'updated', time: {} }, [id(0), id(1), id(2), id(3), id(4), id(5)]],
        ];
        for (const [name, query, expected] of orders) {
          for (const ascending of [true, false]) {
            const order = ascending ? expected : [...expected].reverse();
            const q: ReadingsQuery = { ...query, ascending };
            expect(idsOf(await allRows(q)), `${name} ${ascending}`).toEqual(order);
            for (const limit of [1, 2, 4]) expect(idsOf(await allRows(q, limit)), `${name} ${ascending} ${limit}`).toEqual(order);
          }
        }
      });

      it('reads dated readings between inclusive times, undated ones between inclusive ids, and only the patient asked for', async () => {
        const { patient, stored, id } = await patientWithRows();
        const effective = { patientId: patient, order: 'effective', ascending: true } as const;
        const hour = (n: number) => T0 + n * HOUR;
        expect(idsOf(await allRows({ ...effective, time: { from: hour(1), to: hour(2) } }))).toEqual([id(1), id(4), id(3)]);
        expect(idsOf(await allRows({ ...effective, time: { from: hour(1), to: hour(2) - 1 } }))).toEqual([id(1), id(4)]);
        expect(idsOf(await allRows({ ...effective, ascending: false, time: { from: hour(1), to: hour(2) } }, 2))).toEqual([id(3), id(4), id(1)]);
        expect(idsOf(await allRows({ ...effective, time: { from: hour(2) } }))).toEqual([id(3), id(0)]);
        expect(idsOf(await allRows({ ...effective, time: { to: hour(1) } }))).toEqual([id(1), id(4)]);
        expect(idsOf(await allRows({ ...effective, codeId: 8, time: { from: hour(2) } }))).toEqual([id(3)]);
        expect(idsOf(await allRows({ ...effective, undated: {} }))).toEqual([id(2), id(5)]);
        expect(idsOf(await allRows({ ...effective, undated: { from: id(5) } }))).toEqual([id(5)]);
        expect(idsOf(await allRows({ ...effective, ascending: false, undated: { to: id(2) } }))).toEqual([id(2)]);
        expect(idsOf(await allRows({ ...effective, time: { from: hour(3) }, undated: {} }))).toEqual([id(0), id(2), id(5)]);
        expect(idsOf(await allRows({ ...effective, ascending: false, time: { from: hour(3) }, undated: { to: id(2) } }))).toEqual([id(2), id(0)]);
        expect(await allRows({ ...effective, time: { from: hour(4) } })).toEqual([]);
        const updated = Date.parse(stored[0]!.lastUpdated);
        expect(idsOf(await allRows({ patientId: patient, order: 'updated', ascending: true, time: { from: updated, to: updated } }))).toEqual(stored.map((o) => o.id));
        expect(await allRows({ patientId: patient, order: 'updated', ascending: true, time: { from: updated + 1 } })).toEqual([]);
        expect(await allRows({ ...effective, patientId: newPatient(), time: {}, undated: {} })).toEqual([]);
      });

      it('names a next page when a page stops at its limit, even when none follows', async () => {
        const { patient, id } = await patientWithRows();
        const q: ReadingsQuery = { patientId: patient, order: 'updated', ascending: true, time: {} };
        const full = await readReadings(q, 6);
        expect(idsOf(full.readings)).toEqual([0, 1, 2, 3, 4, 5].map(id));
        expect(full.next).toBeDefined();
        expect(await readReadings(q, 6, full.next)).toEqual({ readings: [], next: undefined });
        const more = await readReadings(q, 7);
        expect([more.readings.length, more.next]).toEqual([6, undefined]);
        expect((await readReadings(q, undefined)).next).toBeUndefined();
      });

      it('reads readings whole, and counts them, or those a test of their facts accepts', async () => {
        const { patient, stored } = await patientWithRows();
        const q: ReadingsQuery = { patientId: patient, order: 'updated', ascending: true, time: {} };
        expect(await allRows(q, 4)).toEqual(stored);
        expect(await countReadings(q)).toBe(6);
        expect(await countReadings({ patientId: patient, order: 'effective', codeId: 8, ascending: true, time: {}, undated: {} })).toBe(2);
        const tested: unknown[] = [];
        const count = await countReadings(q, (facts) => {
          tested.push(facts);
          return facts.codeId === 7;
        });
        expect(count).toBe(4);
        expect(tested).toEqual(stored.map(({ data: _data, uuid: _uuid, ...facts }) => facts));
      });

      it("gives back the readings a filter keeps, page by page, the same whether or not it names a test of their values alone", async () => {
        const patient = newPatient();
        // Two hours of readings whose values cycle 0-9, and a few without values.
        const inputs = [
          ...Array.from({ length: 40 }, (_, n) => reading(patient, { at: Math.floor(n / 20), values: [{ member: 0, value: n % 10 }] })),
          ...Array.from({ length: 3 }, () => reading(patient, { at: 1 })),
        ];
        const stored = (await storeObservations(inputs)).map(created).sort((a, b) => a.effective!.start - b.effective!.start || a.id - b.id);
        const high = (values: KeptValue[] | undefined) => values?.some((v) => v.value >= 8) ?? false;
        // The filter's own test is stricter than its test of values: the store may only leave out what the latter fails.
        const keep = (r: ReadingFacts) => high(r.values) && r.id % 2 === 0;
        const expected = stored.filter(keep);
        expect(expected.length).toBeGreaterThan(1);
        const q: ReadingsQuery = { patientId: patient, order: 'effective', ascending: true, time: {} };
        for (const filter of [{ keep }, { keep, keepValues: (_codeId: number, values: KeptValue[] | undefined) => high(values) }]) {
          for (const limit of [undefined, 1, 3]) {
            expect(await allRows(q, limit, filter), `${Object.keys(filter).join(', ')} ${limit}`).toEqual(expected);
            expect(await allRows({ ...q, ascending: false }, limit, filter)).toEqual([...expected].reverse());
          }
        }
      });

      it("keeps a reading's lifted values (units that need escaping too) and gives them back with the reading and its facts", async () => {
        const patient = newPatient();
        const values = [
          { member: 0, value: 58 },
          { member: 1, value: 154.3, unit: 'lb' },
          { member: 2, value: -0.25, unit: 'odd;unit:with%,signs' },
          { member: 3, value: 1e21, unit: 'g' },
        ];
        const kept = await storeOne(reading(patient, { values }));
        const before = await storeOne(reading(patient, { at: 1 })); // stored before values were lifted: none kept
        expect(kept.values).toEqual(values);
        expect(await readObservation(kept.id)).toEqual(kept);
        expect((await readObservation(before.id))?.values).toBeUndefined();
        const q: ReadingsQuery = { patientId: patient, order: 'effective', ascending: true, time: {} };
        expect(await allRows(q)).toEqual([kept, before]);
        const facts: unknown[] = [];
        await countReadings(q, (f) => facts.push(f) > 0);
        expect(facts).toEqual([kept, before].map(({ data: _data, uuid: _uuid, ...f }) => f));
        // A test that reads the payload (a blood glucose's coding follows its specimen) is shown it when it asks.
        const withPayload: unknown[] = [];
        await countReadings(q, (f) => withPayload.push(f) > 0, true);
        expect(withPayload).toEqual([kept, before].map(({ uuid: _uuid, ...f }) => f));
      });

      it('refuses a reading too large to keep, and an identifier too long to claim, before anything is written', async () => {
        const small = { ...reading(newPatient()), id: 1, lastUpdated: new Date(T0).toISOString() };
        expect(observationStore().tooLarge(small)).toBeUndefined();
        expect(observationStore().tooLarge({ ...small, data: 'A'.repeat(600_000) })).toMatch(/too large to store/);
        expect(observationStore().canClaim(newIdentifier())).toBe(true);
        expect(observationStore().canClaim({ system: 'https://contract.test/ids', value: 'v'.repeat(3000) })).toBe(false);
      });

      it("feeds the search's row streams: several patients merged in date order", async () => {
        const [p, q] = [newPatient(), newPatient()];
        const ofP = (await storeObservations([reading(p, { at: 2 }), reading(p, { at: 0 }), reading(p, { at: null })])).map(created);
        const ofQ = (await storeObservations([reading(q, { at: 1 }), reading(q, { at: 3 })])).map(created);
        const base = { dates: {}, updated: {}, withUndated: true };
        const stream = orderedRows([p, q], (patientId) => [{ ...base, patientId }], { order: { kind: 'date', descending: false }, backward: false }, undefined, () => true, 2);
        const seen: number[] = [];
        for await (const run of runsOf(stream)) seen.push(...run.map((row) => row.id as number));
        expect(seen).toEqual([ofP[1]!.id, ofQ[0]!.id, ofP[0]!.id, ofQ[1]!.id, ofP[2]!.id]);
      });
      it("feeds an export's read of a patient: every row once, read in slices after the first page", async () => {
        // A first page of ten search pages of 23 (and the two rows a read adds to one): 250 rows, so 605 read in slices.
        process.env.MAX_PAGE_SIZE = '23';
        resetConfig();
        onTestFinished(() => {
          delete process.env.MAX_PAGE_SIZE;
          resetConfig();
        });
        const patient = newPatient();
        // Three readings to an hour, so the first page ends among readings of one instant; a few undated.
        const inputs = [...Array.from({ length: 600 }, (_, i) => reading(patient, { at: Math.floor(i / 3) })), ...Array.from({ length: 5 }, () => reading(patient, { at: null }))];
        const stored = [];
        for (let i = 0; i < inputs.length; i += 100) stored.push(...(await storeObservations(inputs.slice(i, i + 100))).map(created));
        const all = stored.map((o) => o.id).sort((a, b) => a - b);
        // Oldest first (date order), or newest first (the patient order an export reads in).
        const exported = async (read: { dates: { lo?: number; hi?: number }; withUndated: boolean; anyOrder?: boolean }, newestFirst: boolean) => {
          const order = newestFirst ? ({ kind: 'patient', descending: false } as const) : ({ kind: 'date', descending: false } as const);
          const stream = orderedRows([patient], (patientId) => [{ ...read, patientId, updated: {} }], { order, backward: false }, undefined, () => true, Number.MAX_SAFE_INTEGER, true);
          const seen: number[] = [];
          for await (const run of runsOf(stream)) seen.push(...run.map((row) => row.id));
          return seen.sort((a, b) => a - b);
        };
        // The whole patient in one read, both ways (undated first or last), and a dated stretch alone.
        expect(await exported({ dates: {}, withUndated: true, anyOrder: true }, false)).toEqual(all);
        expect(await exported({ dates: {}, withUndated: true, anyOrder: true }, true)).toEqual(all);
        const within = stored.filter((o) => o.effective && o.effective.start >= T0 + 20 * HOUR && o.effective.start < T0 + 180 * HOUR).map((o) => o.id).sort((a, b) => a - b);
        expect(within).toHaveLength(480);
        expect(await exported({ dates: { lo: T0 + 20 * HOUR, hi: T0 + 180 * HOUR }, withUndated: false }, false)).toEqual(within);
        expect(await exported({ dates: { lo: T0 + 20 * HOUR, hi: T0 + 180 * HOUR }, withUndated: false }, true)).toEqual(within);
      });
    });

    describe('span statistics', () => {
      it("raises a patient's span to the power of two at or above it and never lowers it", async () => {
        const [patient, other] = [newPatient(), newPatient()];
        expect(await storedSpans([patient, other])).toEqual(new Map([[patient, 1], [other, 1]]));
        await raiseSpans(new Map([[patient, 1000], [other, 1]]));
        expect(await storedSpans([patient, other])).toEqual(new Map([[patient, 1024], [other, 1]]));
        expect(knownSpan(patient)).toBe(1024);
        await raiseSpans(new Map([[patient, 5000]]));
        expect((await storedSpans([patient])).get(patient)).toBe(8192);
        // Without what this process remembers, a smaller span reaches the store, which keeps the larger.
        forgetKnownSpans();
        await raiseSpans(new Map([[patient, 10]]));
        expect((await storedSpans([patient])).get(patient)).toBe(8192);
        expect(knownSpan(patient)).toBe(8192);
      });

      it('is raised by storing a reading that lasts longer than the span stored', async () => {
        const patient = newPatient();
        await storeOne(reading(patient, { hours: 10 }));
        expect((await storedSpans([patient])).get(patient)).toBe(2 ** Math.ceil(Math.log2(10 * HOUR)));
        await storeOne(reading(patient, { hours: 1 }));
        expect((await storedSpans([patient])).get(patient)).toBe(2 ** Math.ceil(Math.log2(10 * HOUR)));
      });
    });

    describe("deleting a patient's readings", () => {
      it('deletes the rows, their ids, identifier claims and span, leaves other patients alone, and can run again', async () => {
        const [patient, other] = [newPatient(), newPatient()];
        const claimed = newIdentifier();
        const stored = (await storeObservations([reading(patient, { identifiers: [claimed], hours: 10 }), reading(patient, { at: null }), reading(patient)])).map(created);
        const kept = await storeOne(reading(other, { hours: 10 }));

        expect(await deletePatientObservations(patient)).toBe(3);
        expect(await allRows({ patientId: patient, order: 'updated', ascending: true, time: {} })).toEqual([]);
        for (const o of stored) expect(await readObservation(o.id)).toBeUndefined();
        expect(await readObservations(stored.map((o) => o.id))).toEqual([]);
        expect(await storedSpans([patient])).toEqual(new Map([[patient, 1]]));
        expect(await readObservation(kept.id)).toEqual(kept);
        expect((await storedSpans([other])).get(other)).toBeGreaterThan(1);

        // The identifier is free again, and a re-post is a new reading.
        const again = await storeOne({ ...reading(patient), identifiers: [claimed], uuid: stored[0]!.uuid });
        expect(again.id).toBeGreaterThan(stored[2]!.id);
        expect(await deletePatientObservations(patient)).toBe(1);
        expect(await deletePatientObservations(patient)).toBe(0);
      });
    });
  });
}
