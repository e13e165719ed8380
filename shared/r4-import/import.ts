/**
 * The R4 import (docs/r4-import.md): each R4 resource is converted to R5, its losses found, and the result
 * handed to the normal create path (`processEntries`): native store for mobile-health Observations,
 * the auxiliary store of the header's FHIR Source for the rest, R5 validation on the way. Entries
 * are independent (even in a `transaction` Bundle); each gets a status and an outcome: the created
 * resource with an `information` issue (nothing lost) or a `warning` per dropped R4 path, or error
 * issues first, then those warnings, and nothing stored.
 */
import { conversionTable, isR4ResourceType } from './tables';
import { convertR4, MAX_IMPORT_DEPTH } from './convert';
import { isObject } from '../json';
import { likeness, looksLikeR5 } from './likeness';
import { lossReport } from './loss';
import { dropIssue, type Drop } from './why';
import { isKnownResourceType } from '../fhir/definitions';
import { issue, operationOutcome, type OutcomeIssue } from '../fhir/outcome';
import { isAuxiliaryType, PROJECTION_TYPES } from '../auxiliary/accepted-types';
import { badRequest, isHttpError } from '../http/errors';
import { FHIR_BASES } from '../http/families';
import { assertWithinBounds } from '../fhir/validation/limits';
import { jsonDepth } from '../http/json-depth';
import type { Logger } from '../telemetry/logger';
import { assertBundleSize, type ParsedEntry } from '../observations/create/bundle';
import { processEntries, type EntryResult, type UploadRequest } from '../observations/create/process';
import { unfinishedEntry } from '../observations/create/unfinished';

/** One input resource, converted or refused, with what the conversion lost. */
export interface PreparedImport {
  entry: ParsedEntry;
  type?: string;
  /** What the conversion lost, each with why. */
  dropped: Drop[];
  /** Said when the resource looks like R5 rather than R4 (an `information` issue after the drops). */
  advice?: OutcomeIssue;
}

const refused = (status: number, code: OutcomeIssue['code'], message: string, at?: string): PreparedImport => ({
  entry: { ok: false, status, issues: [issue('error', code, message, at)] },
  dropped: [],
});

/** One entry of an import Bundle: its resource, and the fullUrl other entries may refer to it by. */
export interface ImportEntry {
  resource: unknown;
  fullUrl?: string;
}

/** The entries of an import Bundle (request-level 400 for what makes the whole body unreadable). */
export function importBundleEntries(body: unknown): ImportEntry[] {
  if (!isObject(body) || body.resourceType !== 'Bundle') {
    throw badRequest('The request body must be an R4 Bundle (resourceType Bundle); POST a single resource to /fhir-import/R4/<Type>.', 'structure').at('Bundle');
  }
  const entries = body.entry;
  if (entries === undefined || (Array.isArray(entries) && entries.length === 0)) {
    throw badRequest('The Bundle has no entries: there is nothing to import.', 'required').at('Bundle.entry');
  }
  if (!Array.isArray(entries)) throw badRequest('Bundle.entry must be a list of entries.', 'structure').at('Bundle.entry');
  assertBundleSize(entries.length, 'An import Bundle');
  return entries.map((entry) => {
    if (!isObject(entry)) return { resource: entry };
    return { resource: entry.resource ?? null, ...(typeof entry.fullUrl === 'string' ? { fullUrl: entry.fullUrl } : {}) };
  });
}

/**
 * Converts one input resource (of the URL's type on the single-resource path). What the import
 * cannot take is a refused entry: not a resource, a Bundle, a type that is not R4, one the service
 * does not store, a read-only projection (a Device is stored, as one a FHIR Source sends). `fullUrl` is the entry's, which other entries of the
 * Bundle may refer to it by (their references are resolved when they are stored).
 */
export function prepareImport(resource: unknown, at: string, urlType?: string, fullUrl?: string): PreparedImport {
  if (!isObject(resource)) return refused(400, 'structure', 'The entry has no resource (a JSON object).', at);
  const type = resource.resourceType;
  if (typeof type !== 'string' || type === '') return refused(400, 'required', 'The resource has no resourceType.', `${at}.resourceType`);
  if (urlType !== undefined && type !== urlType) {
    return refused(400, 'invalid', `resourceType '${type}' does not match the type of the URL, ${urlType}.`, `${at}.resourceType`);
  }
  if (type === 'Bundle') return refused(400, 'not-supported', 'A Bundle inside an import is not supported: send its resources as entries of the import Bundle.', at);
  if (!isR4ResourceType(type)) {
    if (!isKnownResourceType(type)) return refused(404, 'not-supported', `Unsupported FHIR resource type: ${type}.`, at);
    const endpoint = r5Endpoint(type);
    const advice = endpoint ? `post it to ${endpoint}` : `this service does not store ${type} resources in either release`;
    return refused(400, 'not-supported', `${type} is not an R4 resource type (it exists only in R5): ${advice}.`, at);
  }
  if (PROJECTION_TYPES.has(type) && !isAuxiliaryType(type)) {
    return refused(405, 'not-supported', `${type} is a read-only projection of this service's own records (managed through /api/v1/); it cannot be imported.`, at);
  }
  if (!isAuxiliaryType(type)) return refused(404, 'not-supported', `Unsupported FHIR resource type: ${type}. This service does not store ${type} resources.`, at);
  if (jsonDepth(resource, MAX_IMPORT_DEPTH) > MAX_IMPORT_DEPTH) {
    return refused(400, 'too-costly', `The resource nests deeper than ${MAX_IMPORT_DEPTH} levels.`, at);
  }
  // What one resource may hold is bounded before the conversion and its loss report walk it.
  try {
    assertWithinBounds(resource, at);
  } catch (e) {
    if (isHttpError(e)) return { entry: { ok: false, status: e.status, issues: e.issues }, dropped: [] };
    throw e;
  }
  const conversion = convertR4(resource);
  if (!conversion) return refused(400, 'not-supported', `${type} has no R5 counterpart.`, at);
  const dropped = lossReport(resource, conversion);
  const prepared: PreparedImport = { entry: { ok: true, type, resource: conversion.resource, ...(fullUrl !== undefined ? { fullUrl } : {}) }, type, dropped };
  if (dropped.length > 0) {
    const seen = likeness(resource, conversionTable(type)!);
    const endpoint = r5Endpoint(type);
    if (looksLikeR5(seen) && endpoint) {
      const only = (names: string[]) => (names.length > 0 ? ` (${names.join(', ')})` : '');
      prepared.advice = issue(
        'information',
        'informational',
        `This ${type} looks like FHIR R5, not R4: ${seen.r5Only.length} of its elements fit only R5${only(seen.r5Only)}, ${seen.r4Only.length} only R4${only(seen.r4Only)}. The import read it as R4; to store an R5 resource as sent, post it to ${endpoint}.`,
      );
    }
  }
  return prepared;
}

/** Where the service takes R5 writes of a type, when it does: advice names only endpoints that exist. */
export function r5Endpoint(type: string): string | undefined {
  return isAuxiliaryType(type) ? `${FHIR_BASES[0]}/${type}` : undefined;
}

/** An input the request's deadline left unconverted: answered as not started, to be sent again. */
export function notStartedImport(): PreparedImport {
  return { entry: { ok: false, status: 503, issues: unfinishedEntry('not-started', 'resource').outcome!.issue }, dropped: [] };
}

const NO_LOSS = 'The conversion from R4 to R5 lost no field.';
const REPLACED = 'This source had imported a resource with the same type and id before: that resource was replaced and keeps its id.';

/** The import's answer for one entry: the create's result with the conversion's report merged in. */
export function importResult(result: EntryResult, prepared: PreparedImport): EntryResult {
  const drops = [...prepared.dropped.map(dropIssue), ...(prepared.advice ? [prepared.advice] : [])];
  const notes = result.outcome?.issue ?? [];
  if (result.status < 300) {
    const { outcome: _o, ...created } = result;
    const first = drops.length > 0 ? drops : [issue('information', 'informational', NO_LOSS)];
    // A re-import of the same id through the same source replaced that row: a success all the same (201, as
    // every import success), with a note saying so.
    const replaced = result.status === 200 && !notes.some((n) => n.code === 'duplicate') ? [issue('information', 'informational', REPLACED)] : [];
    // The store's notes ride along: a duplicate, what it did not keep, references it could not resolve.
    return { ...created, status: 201, outcome: operationOutcome([...first, ...replaced, ...notes.filter((n) => n.severity === 'information' || n.severity === 'warning')]) };
  }
  const errors = notes.filter((n) => n.severity === 'error' || n.severity === 'fatal');
  const others = notes.filter((n) => !errors.includes(n));
  const head = errors.length > 0 ? errors : [issue('error', 'processing', `The entry was not stored (${result.status}).`)];
  return { status: result.status, outcome: operationOutcome([...head, ...others, ...drops]) };
}

/** Imports prepared entries through the normal create path, logging each dropped path once. */
export async function importPrepared(prepared: readonly PreparedImport[], upload: UploadRequest, log?: Logger): Promise<EntryResult[]> {
  for (const p of prepared) {
    for (const { path, kind } of p.dropped) log?.warn('R4 import dropped a field', { event: 'r4-import-drop', type: p.type, path, kind });
  }
  const results = await processEntries(
    prepared.map((p) => p.entry),
    upload,
  );
  return results.map((r, i) => importResult(r, prepared[i]!));
}
