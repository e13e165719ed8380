/**
 * Storing readings in blocks (layout 3): never a second reading for the same patient and uuid,
 * never a silent loss, one write per block an upload touches rather than one per reading.
 *
 * For each upload, in this order:
 *
 * 0. An identifier another reading holds answers 'conflict' before anything is written.
 * 1. **Pointers**, per upload and patient: the id range and the update log (`block-pointers.ts`),
 *    and the patient's code set when a code is new to them. They name fresh ids, so they need no
 *    condition; a pointer whose reading never lands (refused, or the upload stopped) leads to a
 *    stretch without its id, which every read treats as no reading.
 * 2. **Claims**, per reading: `U#<uuid>` in the patient's partition, a conditional put naming the
 *    reading's id, stretch, time of storing and a hash of its payload (with identifiers, one
 *    transaction with their claims). A claim already there whose reading is in its stretch answers
 *    'existing'. One whose reading is not there yet (another request is writing it, or stopped
 *    before its block) and that names the same stretch and payload is the same reading: this
 *    request writes it under the claimed id and time (the block takes an id once, so both writers
 *    may), and answers 'existing'. A claim naming another payload answers 503 while a request could
 *    still be writing it, and is cleared after that. An identifier's claim held by a reading that is
 *    stored, or still being stored, is a conflict.
 * 3. **Blocks**: the readings of one stretch are merged into its last segment (or a new one when
 *    the last is full) by one put conditional on the segment's version; two uploads writing one
 *    stretch at once meet in the condition, and the one refused reads the stretch again and merges
 *    anew (optimistic concurrency, with backoff). In one process, readings that arrive while their
 *    stretch is being written wait and go in its next write.
 *
 * A reading whose block could not be written after the retries answers 503 and its claims are taken
 * back, so the device's re-send stores it afresh.
 */
import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException, TransactionCanceledException, type CancellationReason } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import pMap from 'p-map';
import { BoundedMap } from '../../bounded-map';
import { batchGetAll, batchWriteAll } from '../../store/batch';
import { PASSING_CANCELLATIONS } from '../../store/busy';
import { dynamo } from '../../store/clients';
import { idBlocks } from '../../store/counters';
import { backoff, isRetryable, MAX_ATTEMPTS, retryWhileBusy } from '../../store/retry';
import { rootLogger } from '../../telemetry/logger';
import type { ObservationIdentifier, StoredObservation } from '../model';
import { blockOrder } from './block-codec';
import { blockBytes, blockItem, idsOfStretch, readingsOfBlock, SEGMENT_BYTES, type BlockItem } from './block-items';
import { blockKeys, blockOf, patientOfPk, stretchFromText, stretchOf, stretchText, type StretchRef } from './block-keys';
import { pointerItems } from './block-pointers';
import { readingsAt, readById, stretchItems } from './block-reads';
import { table } from './dynamo-table';
import { storeBusy, storeRefused, type ObservationStore, type WriteOutcome } from './port';
import { claimKey, inRounds, keyId, readingKeys } from './rounds';

/** Ids in blocks: one counter write per 1,000 readings. */
const OBSERVATION_ID_BLOCK = 1000;
/** Claims in flight per request. */
const CLAIM_CONCURRENCY = 16;
/** Stretches written side by side per request. */
const STRETCH_CONCURRENCY = 8;
/**
 * A claim whose reading is not stored after this long belongs to an upload that stopped: no
 * request lives longer (the functions' limit is 29 s), so it is cleared for the next one.
 */
export const STALE_CLAIM_MS = 120_000;

export const newIds: ObservationStore['newIds'] = (count) => idBlocks('observation', OBSERVATION_ID_BLOCK).take(count);

interface Placing {
  index: number;
  observation: StoredObservation;
  ref: StretchRef;
  /** Written under another request's claim (the same reading it is storing, or stopped storing): answered 'existing'. */
  adopted?: boolean;
}

const refOf = (o: StoredObservation): StretchRef => ({ codeId: o.codeId, stretch: stretchOf(o.effective?.start) });

export async function insert(readings: readonly StoredObservation[]): Promise<WriteOutcome[]> {
  const outcomes = new Array<WriteOutcome>(readings.length);
  const placing = readings.map((observation, index): Placing => ({ index, observation, ref: refOf(observation) }));
  await inRounds(placing, (p) => readingKeys(p.observation).map(keyId), async (round) => {
    const free = await withoutHeldIdentifiers(round, outcomes);
    const pointed = await writePointers(free, outcomes);
    const claimed = (await pMap(pointed, (p) => claim(p, outcomes), { concurrency: CLAIM_CONCURRENCY })).filter((p): p is Placing => p !== undefined);
    await writeBlocks(claimed, outcomes);
  });
  return outcomes;
}

/** Pointers are written before claims and blocks, so a reading found in its block is always readable by id. */
export const makeReadableById: ObservationStore['makeReadableById'] = async () => [];

// ---------------------------------------------------------------------------------------------
// 1. Claims

type ClaimResult =
  | { kind: 'owned' }
  | { kind: 'settled'; outcome: WriteOutcome }
  /** The uuid's claim names another id. */
  | { kind: 'uuid-held'; id: number; ref: StretchRef; at: string; hash: string | undefined }
  /** An identifier's claim names another id. */
  | { kind: 'identifier-held'; identifier: ObservationIdentifier; id: number; at: string };

const isStale = (at: string) => !(Date.now() - Date.parse(at) < STALE_CLAIM_MS);

/** A short hash of a payload: a claim names what it claims, so a re-send of the same reading can finish storing it. */
const payloadHash = (data: string) => createHash('sha256').update(data).digest('base64url').slice(0, 16);

function claimItem(p: Placing) {
  const o = p.observation;
  return { ...blockKeys.claim(o.patientId, o.uuid), id: o.id, st: stretchText(p.ref), at: o.lastUpdated, h: payloadHash(o.data) };
}

const identifierClaimItem = (o: StoredObservation, identifier: ObservationIdentifier) => ({ ...claimKey(identifier), id: o.id, patientId: o.patientId, at: o.lastUpdated });

/** Claims the reading's uuid (and identifiers); undefined when its outcome is settled here. */
async function claim(p: Placing, outcomes: WriteOutcome[]): Promise<Placing | undefined> {
  const o = p.observation;
  // A stale claim cleared counts as progress: claim again (a few times at most: each clearing needs a stale claim).
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const result = o.identifiers.length === 0 ? await putClaim(p) : await transactClaims(p);
    if (result.kind === 'owned') return p;
    if (result.kind === 'settled') {
      outcomes[p.index] = result.outcome;
      return undefined;
    }
    if (result.kind === 'uuid-held') {
      const existing = (await readingsAt(o.patientId, [{ id: result.id, ref: result.ref }], 'readings')).get(result.id);
      if (existing) {
        outcomes[p.index] = { kind: 'existing', observation: existing as StoredObservation };
        return undefined;
      }
      // The same reading, claimed by a request still writing it or stopped before its block: finish it.
      if (stretchText(result.ref) === stretchText(p.ref) && result.hash === payloadHash(o.data)) {
        return { ...p, observation: { ...o, id: result.id, lastUpdated: result.at }, adopted: true };
      }
      if (!isStale(result.at)) {
        outcomes[p.index] = storeBusy();
        return undefined;
      }
      await clearClaim(blockKeys.claim(o.patientId, o.uuid), result);
      continue;
    }
    // An identifier held by a reading that is stored, or still being stored, is a conflict.
    if (!isStale(result.at) || (await readById(result.id))) {
      outcomes[p.index] = { kind: 'conflict', identifier: result.identifier, heldBy: result.id };
      return undefined;
    }
    await clearClaim(claimKey(result.identifier), result);
  }
  outcomes[p.index] = storeBusy();
  return undefined;
}

/**
 * The readings of a round whose identifiers no other stored reading holds: such a conflict is
 * answered before anything of the reading is written (the claims' transaction settles the rest: a
 * race, a holder being stored). A reading whose uuid is claimed already is left to its claim (a
 * re-send holds its own identifiers).
 */
async function withoutHeldIdentifiers(round: readonly Placing[], outcomes: WriteOutcome[]): Promise<Placing[]> {
  const claiming = round.filter((p) => p.observation.identifiers.length > 0);
  if (claiming.length === 0) return [...round];
  const keys = claiming.flatMap((p) => [blockKeys.claim(p.observation.patientId, p.observation.uuid), ...p.observation.identifiers.map(claimKey)]);
  const held = new Map((await batchGetAll(table(), keys)).map((item) => [keyId(item), { id: Number(item.id), at: String(item.at ?? new Date(0).toISOString()) }]));
  const conflicts = await pMap(
    claiming,
    async (p) => {
      const o = p.observation;
      if (held.has(keyId(blockKeys.claim(o.patientId, o.uuid)))) return undefined;
      for (const identifier of o.identifiers) {
        const claim = held.get(keyId(claimKey(identifier)));
        if (!claim || claim.id === o.id) continue;
        // Only a stored holder that is another reading (one being stored is the claims' transaction's to settle).
        const holder = await readById(claim.id);
        if (holder && !(holder.patientId === o.patientId && holder.uuid === o.uuid)) return { p, identifier, holder: claim };
      }
      return undefined;
    },
    { concurrency: CLAIM_CONCURRENCY },
  );
  for (const c of conflicts) if (c) outcomes[c.p.index] = { kind: 'conflict', identifier: c.identifier, heldBy: c.holder.id };
  return round.filter((p) => outcomes[p.index] === undefined);
}

/** Deletes a claim only if it still names that id and time (another request may have cleared and taken it). */
async function clearClaim(key: { pk: string; sk: string }, holder: { id: number; at: string }): Promise<void> {
  try {
    await retryWhileBusy(() =>
      dynamo().send(new DeleteCommand({ TableName: table(), Key: key, ConditionExpression: 'id = :id AND #at = :at', ExpressionAttributeNames: { '#at': 'at' }, ExpressionAttributeValues: { ':id': holder.id, ':at': holder.at } })),
    );
  } catch (e) {
    if (!(e instanceof ConditionalCheckFailedException)) throw e;
  }
}

async function putClaim(p: Placing): Promise<ClaimResult> {
  try {
    await retryWhileBusy(() => dynamo().send(new PutCommand({ TableName: table(), Item: claimItem(p), ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })));
    return { kind: 'owned' };
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return heldBy(p, e.Item ? unmarshall(e.Item) : undefined);
    return { kind: 'settled', outcome: failureOf(e, 'observation claim refused') };
  }
}

/** What a refused uuid claim means: our own (a put the SDK sent again after a lost answer), or another reading's. */
function heldBy(p: Placing, old: Record<string, unknown> | undefined): ClaimResult {
  if (!old || Number(old.id) === p.observation.id) return { kind: 'owned' };
  return { kind: 'uuid-held', id: Number(old.id), ref: stretchFromText(String(old.st)), at: String(old.at), hash: old.h === undefined ? undefined : String(old.h) };
}

function failureOf(e: unknown, what: string): WriteOutcome {
  if (isRetryable(e)) return storeBusy();
  rootLogger().error(what, e instanceof Error ? e : String(e));
  return storeRefused();
}

/**
 * Same actions, same token: a transaction the SDK resends after a lost answer is applied once.
 * Tokens are remembered per account and region, so the table is part of it.
 */
const requestToken = (o: StoredObservation) => createHash('sha256').update(`${table()}|${o.id}:${o.patientId}:${o.uuid}`).digest('base64url').slice(0, 36);

/** The uuid's claim and one claim per identifier, all or none. */
async function transactClaims(p: Placing): Promise<ClaimResult> {
  const o = p.observation;
  const put = (Item: Record<string, unknown>) => ({ Put: { TableName: table(), Item, ConditionExpression: 'attribute_not_exists(pk)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } });
  const actions = [put(claimItem(p)), ...o.identifiers.map((i) => put(identifierClaimItem(o, i)))];
  for (let attempt = 1; ; attempt += 1) {
    try {
      await dynamo().send(new TransactWriteCommand({ TransactItems: actions, ClientRequestToken: requestToken(o) }));
      return { kind: 'owned' };
    } catch (e) {
      const reasons: CancellationReason[] | undefined = e instanceof TransactionCanceledException ? e.CancellationReasons : undefined;
      const failed = reasons?.findIndex((r) => r.Code === 'ConditionalCheckFailed') ?? -1;
      if (failed === 0) return heldBy(p, reasons![0]!.Item ? unmarshall(reasons![0]!.Item) : undefined);
      if (failed > 0) {
        const old = reasons![failed]!.Item ? unmarshall(reasons![failed]!.Item) : {};
        // An identifier claim naming this very id without its uuid claim (nothing of the cancelled
        // transaction landed) holds nothing stored: the claim() loop finds no reading and clears it.
        const at = Number(old.id) === o.id ? new Date(0).toISOString() : String(old.at ?? new Date(0).toISOString());
        return { kind: 'identifier-held', identifier: o.identifiers[failed - 1]!, id: Number(old.id), at };
      }
      const passing = reasons ? reasons.every((r) => PASSING_CANCELLATIONS.has(r.Code ?? 'None')) : isRetryable(e);
      if (!passing) return { kind: 'settled', outcome: failureOf(e, 'observation claims refused') };
      if (attempt >= MAX_ATTEMPTS) return { kind: 'settled', outcome: storeBusy() };
      await backoff(attempt);
    }
  }
}

/** Takes back the claims of readings that could not be stored, so a re-send starts afresh. */
async function releaseClaims(placings: readonly Placing[]): Promise<void> {
  await pMap(
    placings.flatMap((p) => [blockKeys.claim(p.observation.patientId, p.observation.uuid), ...p.observation.identifiers.map(claimKey)].map((key) => ({ key, p }))),
    async ({ key, p }) => {
      try {
        await clearClaim(key, { id: p.observation.id, at: p.observation.lastUpdated });
      } catch (e) {
        // The claim stays; it is stale after STALE_CLAIM_MS and cleared by the re-send then.
        rootLogger().warn('taking back an observation claim failed', e instanceof Error ? e : String(e));
      }
    },
    { concurrency: CLAIM_CONCURRENCY },
  );
}

// ---------------------------------------------------------------------------------------------
// 2. Pointers and code sets

/**
 * Codes this process knows each patient has (their code set holds them): a new code costs one
 * update, once. A patient's readings are deleted only with the patient (nothing is uploaded for
 * them after), so what a process remembers never names a code set that was deleted under it.
 */
const knownCodes = new BoundedMap<number, Set<number>>(10_000);

/** Writes the pointers (and code sets) of an upload's readings; returns those whose pointers are written (the others answer 503). */
async function writePointers(round: readonly Placing[], outcomes: WriteOutcome[]): Promise<Placing[]> {
  if (round.length === 0) return [];
  const items = pointerItems(round.map((p) => ({ id: p.observation.id, patientId: p.observation.patientId, lastUpdated: p.observation.lastUpdated, ref: p.ref })));
  const failedPointers = await batchWriteAll(table(), items.map((Item) => ({ PutRequest: { Item } }))).catch((e: unknown) => {
    rootLogger().warn('writing observation pointers failed', e instanceof Error ? e : String(e));
    return items.map((Item) => ({ PutRequest: { Item } }));
  });
  const failedCodes = await addCodes(round);
  // A pointer that failed fails every reading of its patient in this upload (pointers are per upload and patient).
  const failedPatients = new Set(failedPointers.map((r) => (String(r.PutRequest!.Item!.pk).startsWith('R#') ? Number(r.PutRequest!.Item!.p) : patientOfPk(r.PutRequest!.Item!.pk))));
  const written = (p: Placing) => !failedPatients.has(p.observation.patientId) && !failedCodes.has(`${p.observation.patientId}#${p.observation.codeId}`);
  for (const p of round) if (!written(p)) outcomes[p.index] = storeBusy();
  return round.filter(written);
}

/** Adds each patient's new codes to their code set; returns the `patient#code` pairs it could not add. */
async function addCodes(claimed: readonly Placing[]): Promise<Set<string>> {
  const wanted = new Map<number, Set<number>>();
  for (const { observation: o } of claimed) {
    if (knownCodes.get(o.patientId)?.has(o.codeId)) continue;
    const codes = wanted.get(o.patientId);
    if (codes) codes.add(o.codeId);
    else wanted.set(o.patientId, new Set([o.codeId]));
  }
  const failed = new Set<string>();
  await pMap([...wanted], async ([patientId, codes]) => {
    try {
      await retryWhileBusy(() =>
        dynamo().send(new UpdateCommand({ TableName: table(), Key: blockKeys.span(patientId), UpdateExpression: 'ADD codes :codes', ExpressionAttributeValues: { ':codes': new Set(codes) } })),
      );
      knownCodes.set(patientId, new Set([...(knownCodes.get(patientId) ?? []), ...codes]));
    } catch (e) {
      rootLogger().warn('adding to a patient\'s code set failed', e instanceof Error ? e : String(e));
      for (const code of codes) failed.add(`${patientId}#${code}`);
    }
  });
  return failed;
}

/** Forgets which codes patients have (a patient's readings were deleted, or a test starts afresh). */
export const forgetKnownCodes = (): void => knownCodes.clear();

// ---------------------------------------------------------------------------------------------
// 3. Blocks

async function writeBlocks(pointed: readonly Placing[], outcomes: WriteOutcome[]): Promise<void> {
  const byStretch = new Map<string, Placing[]>();
  for (const p of pointed) {
    const key = `${p.observation.patientId}#${stretchText(p.ref)}`;
    const group = byStretch.get(key);
    if (group) group.push(p);
    else byStretch.set(key, [p]);
  }
  await pMap(
    [...byStretch.values()],
    async (group) => {
      let placed: Set<number>;
      try {
        placed = await placeInStretch(group[0]!.observation.patientId, group[0]!.ref, group.map((p) => p.observation));
      } catch (e) {
        rootLogger().warn('writing an observation block failed', e instanceof Error ? e : String(e));
        placed = new Set();
      }
      for (const p of group) outcomes[p.index] = !placed.has(p.observation.id) ? storeBusy() : { kind: p.adopted ? 'existing' : 'created', observation: p.observation };
      // A claim this request took is taken back; one it wrote under is left to the request that took it.
      const lost = group.filter((p) => !placed.has(p.observation.id) && !p.adopted);
      if (lost.length > 0) await releaseClaims(lost);
    },
    { concurrency: STRETCH_CONCURRENCY },
  );
}

interface Waiting {
  readings: readonly StoredObservation[];
  settle: (placed: Promise<Set<number>>) => void;
}

/** Per stretch of a patient, the writes waiting for the one under way in this process. */
const stretchQueues = new Map<string, Waiting[]>();

/**
 * Places readings in a stretch, one write at a time per stretch in this process: readings that
 * arrive while a write of their stretch is under way (the other slices of the same upload, another
 * device of the patient) wait for it and go together in the next, so an upload writes each block
 * about once rather than once per slice, without refusing one another's conditions.
 */
function placeInStretch(patientId: number, ref: StretchRef, readings: readonly StoredObservation[]): Promise<Set<number>> {
  const key = `${patientId}#${stretchText(ref)}`;
  return new Promise((resolve) => {
    const settle = (placed: Promise<Set<number>>) => resolve(placed);
    const queue = stretchQueues.get(key);
    if (queue) {
      queue.push({ readings, settle });
      return;
    }
    stretchQueues.set(key, [{ readings, settle }]);
    void drain(key, patientId, ref);
  });
}

async function drain(key: string, patientId: number, ref: StretchRef): Promise<void> {
  for (;;) {
    const waiting = stretchQueues.get(key)!;
    if (waiting.length === 0) {
      stretchQueues.delete(key);
      return;
    }
    const taken = waiting.splice(0);
    const placed = writeStretch(patientId, ref, taken.flatMap((w) => w.readings));
    for (const w of taken) w.settle(placed);
    await placed.catch(() => undefined);
  }
}

/**
 * Merges readings into one stretch of a patient's blocks; returns the ids that are in it
 * afterwards. Each round reads the stretch, takes out what is already there (a put whose answer
 * was lost), and writes one segment: the last one grown, or a new one when the last is full.
 */
export async function writeStretch(patientId: number, ref: StretchRef, readings: readonly StoredObservation[]): Promise<Set<number>> {
  // One reading may come twice (an upload and a re-send finishing it under the same id): once.
  let pending = [...new Map(readings.map((r) => [r.id, r])).values()].sort(blockOrder);
  const placed = new Set<number>();
  let fruitless = 0;
  while (pending.length > 0 && fruitless < MAX_ATTEMPTS) {
    if (fruitless > 0) await backoff(fruitless);
    const segments = await stretchItems(patientId, ref);
    const present = idsOfStretch(segments, patientId);
    for (const r of pending) if (present.has(r.id)) placed.add(r.id);
    pending = pending.filter((r) => !present.has(r.id));
    if (pending.length === 0) break;
    const next = nextSegment(patientId, ref, segments, pending);
    try {
      await dynamo().send(
        new PutCommand({
          TableName: table(),
          Item: next.item,
          ...(next.ver === undefined
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : { ConditionExpression: 'ver = :ver', ExpressionAttributeValues: { ':ver': next.ver } }),
        }),
      );
      for (const r of next.added) placed.add(r.id);
      pending = pending.slice(next.added.length);
      fruitless = 0;
    } catch (e) {
      // Another upload wrote the segment first (or ours landed and its answer was lost): read again.
      if (!(e instanceof ConditionalCheckFailedException) && !isRetryable(e)) throw e;
      fruitless += 1;
    }
  }
  return placed;
}

/**
 * The segment to write next: the last one with as many of the pending readings as keep it within
 * `SEGMENT_BYTES`, or, when not even one fits, a new segment with as many as fit (one at least).
 */
function nextSegment(patientId: number, ref: StretchRef, segments: readonly BlockItem[], pending: readonly StoredObservation[]) {
  const last = segments.reduce<BlockItem | undefined>((a, b) => (!a || blockOf(String(b.sk)).segment > blockOf(String(a.sk)).segment ? b : a), undefined);
  const lastSegment = last ? blockOf(String(last.sk)).segment : -1;
  if (last) {
    const held = readingsOfBlock(last, patientId);
    const ver = Number(last.ver);
    const fit = largestFit(pending, (some) => blockItem(patientId, ref, lastSegment, [...held, ...some], ver + 1));
    if (fit.count > 0) return { item: fit.item!, ver, added: pending.slice(0, fit.count) };
  }
  const fit = largestFit(pending, (some) => blockItem(patientId, ref, lastSegment + 1, some, 1));
  const count = Math.max(1, fit.count);
  return { item: fit.count > 0 ? fit.item! : blockItem(patientId, ref, lastSegment + 1, pending.slice(0, 1), 1), ver: undefined, added: pending.slice(0, count) };
}

/** The most leading readings whose item stays within `SEGMENT_BYTES` (all of them at once when they do; else by halving). */
function largestFit(pending: readonly StoredObservation[], itemOf: (some: readonly StoredObservation[]) => BlockItem): { count: number; item: BlockItem | undefined } {
  const all = itemOf(pending);
  if (blockBytes(all) <= SEGMENT_BYTES) return { count: pending.length, item: all };
  let lo = 0;
  let best: BlockItem | undefined;
  let hi = pending.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const item = itemOf(pending.slice(0, mid));
    if (blockBytes(item) <= SEGMENT_BYTES) {
      lo = mid;
      best = item;
    } else hi = mid - 1;
  }
  return { count: lo, item: lo > 0 ? (best ?? itemOf(pending.slice(0, lo))) : undefined };
}
