/**
 * Create, update (PUT), patch (JSON merge patch) and delete of auxiliary resources. Every check
 * runs before anything is written, so a rejected request stores nothing: the type is accepted,
 * the body is a resource of that type, the FHIR Source is named and the caller's to use, the
 * result is valid R5, and `If-Match` (when sent) names the current version.
 */
import { randomUUID } from 'node:crypto';
// The package's default export is the one form both Node's CommonJS interop and the bundler's ESM read alike.
import jsonPatch, { type Operation } from 'fast-json-patch';
import mergePatch from 'json-merge-patch';
import { assertCanUseFhirSource } from '../auth/scope';
import type { Caller } from '../auth/caller';
import { badRequest, HttpError, notFound, unprocessable } from '../http/errors';
import type { Logger } from '../telemetry/logger';
import { shown } from '../shown';
import { assertNamedSourceIsRows, writableRow } from './access';
import { isAuxiliaryType } from './accepted-types';
import { backoff, MAX_ATTEMPTS } from '../store/retry';
import { discardPendingBody } from './pending-bodies';
import { loadResource, persistNew, persistNextVersion, type Written } from './persist';
import type { ResourceRow } from './rows';
import { auxiliaryStore } from './store/current';
import { UpstreamIdTaken } from './store/port';
import type { CheckedSource } from './types';
import { asResourceOf, assertValidR5, namedSourceId, upstreamIdOf, type Resource } from './submission';

export interface AuxiliaryWriteContext {
  caller: Caller;
  /** The resource type of the URL (or Bundle entry). */
  type: string;
  /** Public origin, for the `Location` of the written version. */
  origin: string;
  /** `X-SVC-FHIR-Source-ID`, when sent. */
  sourceHeader?: string;
  /** The source `sourceHeader` names, already checked for this caller by the request (once for all its entries). */
  checkedSource?: CheckedSource;
  /** `If-Match`, when sent: the write happens only at that version (else 412). */
  ifMatch?: string;
  log?: Logger;
}

/** A concurrent write changed the row between our read and our commit. */
class VersionChanged extends HttpError {
  constructor() {
    super(409, 'The resource was changed by another request at the same time; please retry.', 'conflict');
  }
}

const preconditionFailed = (message: string) => new HttpError(412, message, 'conflict');

/**
 * How many times a write without `If-Match` re-reads and retries after a concurrent change: each
 * round at least one of the contenders wins, and a jittered pause spreads the others out, so a
 * burst of writers to one resource ends with every write applied, none refused.
 */
const RETRIES = MAX_ATTEMPTS - 1;

/** Whether a write that lost a race goes again (after a jittered pause) or reports it. */
async function goAgain(lostRace: boolean, attempt: number): Promise<boolean> {
  if (!lostRace || attempt >= RETRIES) return false;
  await backoff(attempt + 1);
  return true;
}

export function assertAccepted(type: string): void {
  if (!isAuxiliaryType(type)) throw notFound(`Unsupported FHIR resource type: ${type}.`).at(type);
}

/**
 * Stores a new resource (201), or, when the FHIR Source already holds a resource of that type with
 * the submitted id, replaces that one in place (200, same id): re-importing is idempotent.
 */
export async function createAuxiliary(ctx: AuxiliaryWriteContext, body: unknown): Promise<Written & { status: 201 | 200 }> {
  const { caller, type, origin, log } = ctx;
  assertAccepted(type);
  const submitted = asResourceOf(type, body);
  const named = namedSourceId(ctx.sourceHeader, submitted);
  const checked = ctx.checkedSource && ctx.sourceHeader?.trim() === named ? ctx.checkedSource : undefined;
  const { source, patient } = checked ?? (await assertCanUseFhirSource(caller, named));
  await assertValidR5(type, submitted);
  const upstreamId = upstreamIdOf(submitted);
  for (let attempt = 0; ; attempt += 1) {
    try {
      const existing = upstreamId === undefined ? undefined : await rowOfUpstreamId(source.id, type, upstreamId);
      if (existing) return { status: 200, ...(await persistNextVersion(existing, submitted, origin, () => new VersionChanged(), log)) };
      const head = { id: randomUUID(), type, patientId: patient.id, sourceId: source.id, ...(upstreamId === undefined ? {} : { upstreamId }) };
      return { status: 201, ...(await persistNew(head, submitted, origin, log)) };
    } catch (error) {
      // Another request stored the same upstream id (or changed its row) meanwhile: go again.
      if (await goAgain(error instanceof UpstreamIdTaken || error instanceof VersionChanged, attempt)) continue;
      throw error;
    }
  }
}

async function rowOfUpstreamId(sourceId: number, type: string, upstreamId: string): Promise<ResourceRow | undefined> {
  const id = await auxiliaryStore().rows.claimedId(sourceId, type, upstreamId);
  return id === undefined ? undefined : auxiliaryStore().rows.get(id);
}

/** What a lost race at commit is: retried without `If-Match`, a 412 with it. */
function conflictOf(ctx: AuxiliaryWriteContext, id: string): () => HttpError {
  if (ctx.ifMatch === undefined) return () => new VersionChanged();
  return () => preconditionFailed(`${ctx.type}/${id} was changed by another request; If-Match no longer holds.`);
}

/** The version `If-Match` names (`W/"3"`, `"3"` or `*`); a mismatch is a 412. */
function assertIfMatch(row: ResourceRow, ifMatch: string | undefined): void {
  if (ifMatch === undefined || ifMatch.trim() === '*') return;
  const wanted = /^\s*(?:W\/)?"([^"]*)"\s*$/.exec(ifMatch)?.[1] ?? ifMatch.trim();
  if (wanted !== String(row.version)) {
    throw preconditionFailed(`If-Match ${ifMatch} does not match the current version W/"${row.version}" of ${row.type}/${row.id}.`);
  }
}

/**
 * Reads the row, computes its next body and writes it at the version read. Without `If-Match`, a
 * concurrent change is retried on a fresh read; with it, the change is a 412.
 */
async function rewrite(ctx: AuxiliaryWriteContext, id: string, nextBody: (row: ResourceRow) => Promise<Resource>): Promise<Written> {
  const onConflict = conflictOf(ctx, id);
  for (let attempt = 0; ; attempt += 1) {
    const row = await writableRow(ctx.caller, ctx.type, id);
    assertIfMatch(row, ctx.ifMatch);
    const next = await nextBody(row);
    assertNamedSourceIsRows(row, namedSourceId(ctx.sourceHeader, next));
    await assertValidR5(ctx.type, next);
    try {
      return await persistNextVersion(row, next, ctx.origin, onConflict, ctx.log);
    } catch (error) {
      if (await goAgain(error instanceof VersionChanged, attempt)) continue;
      throw error;
    }
  }
}

function assertSameId(type: string, id: string, resource: Resource, what: string): void {
  if (resource.id !== id) {
    const found = resource.id === undefined ? 'no id' : `id '${shown(resource.id)}'`;
    throw badRequest(`The ${what} has ${found}; it must keep the id of the URL, '${id}'.`).at(`${type}.id`);
  }
}

/** PUT: replaces the resource (the body must carry the URL's id). */
export async function updateAuxiliary(ctx: AuxiliaryWriteContext, id: string, body: unknown): Promise<Written> {
  assertAccepted(ctx.type);
  const submitted = asResourceOf(ctx.type, body);
  assertSameId(ctx.type, id, submitted, 'resource');
  return rewrite(ctx, id, async () => submitted);
}

/**
 * Keys that are never FHIR element names and that the merge-patch library cannot take: it drops the
 * first three, and calls the target's own `hasOwnProperty`, which a patch could replace by data.
 */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype', 'hasOwnProperty']);

function assertSafePatch(value: unknown, path: string): void {
  if (Array.isArray(value)) value.forEach((v, i) => assertSafePatch(v, `${path}[${i}]`));
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (UNSAFE_KEYS.has(key)) throw badRequest(`'${key}' is not an element of a FHIR resource.`).at(`${path}.${key}`);
      assertSafePatch(v, `${path}.${key}`);
    }
  }
}

/** PATCH with a JSON merge patch (RFC 7396) applied to the stored resource; the result must be valid R5. */
export async function patchAuxiliary(ctx: AuxiliaryWriteContext, id: string, patch: unknown): Promise<Written> {
  assertAccepted(ctx.type);
  if (!patch || typeof patch !== 'object' || Array.isArray(patch)) {
    throw badRequest('A JSON merge patch must be a JSON object (JSON Patch operation lists are not supported).', 'structure');
  }
  assertSafePatch(patch, ctx.type);
  return rewrite(ctx, id, async (row) => {
    const patched = asResourceOf(ctx.type, mergePatch.apply(structuredClone(await loadResource(row)), patch));
    assertSameId(ctx.type, id, patched, 'patched resource');
    return patched;
  });
}

const JSON_PATCH_OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);
/** What the service owns in a stored resource: a patch may read these (`test`, `copy` from) but not change them. */
const OWNED = /^\/(id|meta|resourceType)(\/|$)/;

/** The operations of a JSON Patch document (RFC 6902), checked before anything is read. */
function jsonPatchOperations(type: string, patch: unknown): Operation[] {
  if (!Array.isArray(patch)) throw badRequest('A JSON Patch must be a list of operations.', 'structure');
  return patch.map((op, i): Operation => {
    const at = `JSON Patch operation ${i}`;
    if (!op || typeof op !== 'object' || Array.isArray(op)) throw badRequest(`${at} must be an object.`, 'structure');
    const { op: name, path, from } = op as Record<string, unknown>;
    if (typeof name !== 'string' || !JSON_PATCH_OPS.has(name)) throw badRequest(`${at}: op must be one of ${[...JSON_PATCH_OPS].join(', ')}.`, 'structure');
    if (typeof path !== 'string' || (path !== '' && !path.startsWith('/'))) throw badRequest(`${at}: path must be a JSON Pointer.`, 'structure');
    if ((name === 'move' || name === 'copy') && (typeof from !== 'string' || (from !== '' && !from.startsWith('/')))) {
      throw badRequest(`${at}: from must be a JSON Pointer.`, 'structure');
    }
    const changes = name !== 'test';
    if ((changes && (path === '' || OWNED.test(path))) || (name === 'move' && OWNED.test(String(from)))) {
      throw badRequest(`${at} may not change ${path === '' ? 'the whole resource' : path}: id, meta and resourceType are the service's.`, 'invalid').at(type);
    }
    if (path.split('/').some((token) => UNSAFE_KEYS.has(token))) throw badRequest(`${at}: '${path}' is not an element path of a FHIR resource.`, 'invalid');
    return op as Operation;
  });
}

/**
 * PATCH with a JSON Patch (RFC 6902, `application/json-patch+json`) applied to the stored resource:
 * the same rules as a merge patch (id, meta and resourceType stay; the result must be valid R5); a
 * failed `test` is a 422, an operation on a path that does not exist a 400.
 */
export async function jsonPatchAuxiliary(ctx: AuxiliaryWriteContext, id: string, patch: unknown): Promise<Written> {
  assertAccepted(ctx.type);
  const operations = jsonPatchOperations(ctx.type, patch);
  return rewrite(ctx, id, async (row) => {
    let patched: unknown;
    try {
      patched = jsonPatch.applyPatch(structuredClone(await loadResource(row)), operations, true, true, true).newDocument;
    } catch (error) {
      if (!(error instanceof jsonPatch.JsonPatchError)) throw error;
      if (error.name === 'TEST_OPERATION_FAILED') throw unprocessable(`JSON Patch operation ${error.index} failed: the resource does not hold that value at ${String(error.operation?.path)}.`);
      const which = error.index === undefined ? 'A JSON Patch operation' : `JSON Patch operation ${error.index}`;
      throw badRequest(`${which} cannot be applied: ${error.message.split('\n')[0]}`, 'processing');
    }
    const result = asResourceOf(ctx.type, patched);
    assertSameId(ctx.type, id, result, 'patched resource');
    return result;
  });
}

/** DELETE: removes the row (and its body in S3); answers whose data it was. */
export async function deleteAuxiliary(ctx: AuxiliaryWriteContext, id: string): Promise<{ patientId: number }> {
  assertAccepted(ctx.type);
  const onConflict = conflictOf(ctx, id);
  for (let attempt = 0; ; attempt += 1) {
    const row = await writableRow(ctx.caller, ctx.type, id, ctx.sourceHeader?.trim() || undefined);
    assertIfMatch(row, ctx.ifMatch);
    try {
      await auxiliaryStore().rows.remove(row, onConflict);
    } catch (error) {
      if (await goAgain(error instanceof VersionChanged, attempt)) continue;
      throw error;
    }
    await discardPendingBody(row.patientId, row.bodyKey, ctx.log);
    return { patientId: row.patientId };
  }
}
