/**
 * The Observation endpoints of the FHIR family, as thin handlers over the domain: the batch upload
 * at the base, create, search (`_source` naming a FHIR Source goes to the auxiliary store), and read
 * by id (UUIDs are auxiliary rows). The type's access is `per-request`: each interaction picks the
 * store first and declares what the request needs (shared/http/router.ts `Access`), which the
 * dispatcher then enforces: the native reads are early reads, a change of a stored reading is a 405
 * asked of no one, everything else needs the caller. No handler here authenticates.
 */
import { assertCanReadPatient } from '../auth/scope';
import { nativeSourceUri, SOURCE_HEADER } from '../fhir/constants';
import { versionHeaders } from '../fhir/version-headers';
import { batchResponse, writeHttpResponse, writeTargetOf } from '../fhir/write-response';
import type { FhirOperation, FhirTypeEntry, FhirTypeHandlers, InteractionArgs, SearchParamCapability } from '../fhir/registry';
import { fhirSiteOf } from '../fhir/router';
import { badRequest, methodNotAllowed, notFound } from '../http/errors';
import type { AuthedRequest, HttpRequest } from '../http/request';
import { fhirJson, type HttpResponse } from '../http/response';
import { earlyRead, type Access } from '../http/router';
import { AUXILIARY_NOT_AVAILABLE, auxiliaryNotAvailable, type AuxiliaryHandover } from './auxiliary-handover';
import { codesById } from './code-table-cache';
import { READING_VERSION, toFhirObservation } from './fhir-observation';
import { readObservation } from './read';
import { cursorOf, enforceHandling, linkedSearch, searchsetBundle } from '../fhir/searchset';
import { observationPositions } from './search/cursor';
import { likelyPatientOf, prepareSearch, searchObservations } from './search/execute';
import { parseNativeQuery } from './search/query';
import { beginLastn, lastn, parseLastn, type EarlyLastn } from './lastn';
import { operationParameters, parameterText } from '../fhir/parameters';
import { parseBatchBundle } from './create/bundle';
import { processEntries, type UploadRequest } from './create/process';
import { recordUpload } from './create/record';
import { batchNotStarted, retryAfterHeader, type EntryNoun } from './create/unfinished';
import { METRIC } from '../telemetry/names';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NATIVE_ID = /^[1-9][0-9]{0,15}$/;

function uploadRequest(req: AuthedRequest, auxiliary: AuxiliaryHandover, noun: EntryNoun): UploadRequest {
  const { caller } = req;
  return {
    caller,
    ...writeTargetOf(req),
    auxiliary,
    deadline: req.deadline,
    noun,
    ...(req.headers[SOURCE_HEADER] !== undefined ? { sourceHeader: req.headers[SOURCE_HEADER] } : {}),
  };
}

/** `_source` absent or naming the native store reads it; any other value (or `_source:below`) is the auxiliary store's. */
function sourceOf(params: URLSearchParams): 'native' | 'auxiliary' {
  const sources = [...params].filter(([k]) => k === '_source' || k.startsWith('_source:'));
  if (sources.length === 0) return 'native';
  return sources.every(([k, v]) => k === '_source' && v === nativeSourceUri()) ? 'native' : 'auxiliary';
}

/** The auxiliary store's handler of an interaction, for the caller (501 when the deployment has none). */
function auxiliaryAccess<K extends keyof FhirTypeHandlers>(auxiliary: AuxiliaryHandover, interaction: K, ...args: InteractionArgs<K>): Access {
  const handler = auxiliary.observation[interaction] as ((req: AuthedRequest, ...args: InteractionArgs<K>) => Promise<HttpResponse>) | undefined;
  if (!handler) throw auxiliaryNotAvailable();
  return { auth: 'caller', handler: (req) => handler(req, ...args) };
}

/**
 * A request's parameters parsed before the caller is known, or the 400 they deserve, kept to be
 * thrown once the caller is known to be allowed to hear it.
 */
function parsedEarly<T>(parse: () => T): { value: T } | { error: unknown } {
  try {
    return { value: parse() };
  } catch (error) {
    return { error };
  }
}

/**
 * A search of the native store is an early read: the page of the patient the query names (or a
 * patient token claims) is read while the account is confirmed.
 */
function search(req: HttpRequest, params: URLSearchParams, auxiliary: AuxiliaryHandover): Access {
  if (sourceOf(params) === 'auxiliary') return auxiliaryAccess(auxiliary, 'search', params);
  const parsed = parsedEarly(() => parseNativeQuery(params));
  const linked = 'value' in parsed ? linkedSearch(fhirSiteOf(req), 'Observation', params, observationPositions(parsed.value.order)) : undefined;
  const readCursor = (text: string | undefined) => cursorOf(linked!, text);
  const now = Date.now();
  return earlyRead({
    ...('value' in parsed
      ? { prepare: (claimedPatient: number | undefined) => prepareSearch(parsed.value, readCursor, likelyPatientOf(parsed.value, claimedPatient === undefined ? undefined : { kind: 'patient', patientId: claimedPatient }), now) }
      : {}),
    handler: async (req, prepared) => {
      if ('error' in parsed) throw parsed.error;
      const query = parsed.value;
      enforceHandling(req.headers['prefer'], query.ignored);
      const page = await searchObservations(req.caller, query, readCursor, now, prepared);
      req.audit.touched(page.rows.map((r) => r.patientId));
      req.meter.count(METRIC.searchPages);
      req.meter.count(METRIC.searchRows, page.rows.length);
      const codes = await codesById(page.rows.map((r) => r.codeId));
      const resources = page.rows.map((o) => toFhirObservation(o, codes.get(o.codeId)!));
      return fhirJson(200, searchsetBundle(linked!, { resources, total: page.total, next: page.next, previous: page.previous, ignored: query.ignored }));
    },
  });
}

/** A read of a stored reading, for the caller. */
async function readReading(req: AuthedRequest, id: string): Promise<HttpResponse> {
  const missing = () => notFound(`Observation ${id} not found.`);
  const observation = NATIVE_ID.test(id) ? await readObservation(Number(id)) : undefined;
  if (!observation) throw missing();
  await assertCanReadPatient(req.caller, observation.patientId).catch(() => {
    throw missing();
  });
  req.audit.touched([observation.patientId]);
  const code = (await codesById([observation.codeId])).get(observation.codeId)!;
  return fhirJson(200, toFhirObservation(observation, code), versionHeaders(READING_VERSION, observation.lastUpdated));
}

function read(id: string, auxiliary: AuxiliaryHandover): Access {
  if (UUID.test(id)) return auxiliaryAccess(auxiliary, 'read', id);
  return earlyRead({ handler: (req) => readReading(req, id) });
}

/** `PUT`, `PATCH`, `DELETE` of an id: the auxiliary store's rows change; a stored reading never does (405, asking no one). */
function writeOf(interaction: 'update' | 'patch' | 'delete', auxiliary: AuxiliaryHandover) {
  return (req: HttpRequest, id: string): Access => {
    if (UUID.test(id)) return auxiliaryAccess(auxiliary, interaction, id);
    throw methodNotAllowed(req.method, req.path, ['GET'], 'A stored mobile-health reading is never changed: post a new reading instead.');
  };
}

/** `GET Observation/<id>/_history/<version>`: a stored reading has only version 1. */
function vread(id: string, versionId: string, auxiliary: AuxiliaryHandover): Access {
  if (UUID.test(id)) return auxiliaryAccess(auxiliary, 'vread', id, versionId);
  if (versionId !== '1') throw notFound(`Version ${versionId} of Observation/${id} does not exist: stored readings have only version 1.`);
  return read(id, auxiliary);
}

/** `POST Observation`: one reading (or an auxiliary Observation), through the shared create path. */
function create(auxiliary: AuxiliaryHandover): Access {
  return {
    auth: 'caller',
    handler: async (req) => {
      const upload = uploadRequest(req, auxiliary, 'resource');
      const body = req.body;
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('The request body must be an Observation resource.', 'structure');
      const results = await processEntries([{ ok: true, type: 'Observation', resource: body }], upload);
      recordUpload(req, results);
      return writeHttpResponse(results[0]!);
    },
  };
}

const SEARCH_PARAMS: readonly SearchParamCapability[] = [
  { name: 'patient', type: 'reference', documentation: 'Patient/<id> or <id>; also patient.organization, patient.identifier (system|value) and patient._has:Group:member:_id (a study; restricts to its codes).' },
  { name: 'subject', type: 'reference', documentation: 'Patient references only.' },
  { name: 'code', type: 'token', documentation: 'system|code, a bare code, or system|; the omh: code or its standard code (http://loinc.org|8867-4); comma = OR; :not and :text.' },
  { name: 'date', type: 'date', documentation: 'The lifted effective time; every prefix; partial dates as ranges; repeat = AND.' },
  { name: 'status', type: 'token' },
  { name: 'identifier', type: 'token', documentation: "The Observation's own identifiers." },
  { name: 'device', type: 'reference' },
  { name: '_id', type: 'token' },
  { name: 'value-quantity', type: 'quantity', documentation: "The reading's principal value (a heart rate's heart_rate); every prefix; units as |system|code, ||unit or none, converted within a dimension (UCUM)." },
  { name: 'component-value-quantity', type: 'quantity', documentation: 'Any lifted value (a component: systolic, diastolic, ...); as value-quantity.' },
  { name: 'combo-value-quantity', type: 'quantity', documentation: 'The principal value or any component value.' },
  { name: 'component-code', type: 'token', documentation: "A component's standard code (http://loinc.org|8480-6)." },
  { name: 'combo-code', type: 'token', documentation: "The reading's codes or a component's." },
  { name: 'code-value-quantity', type: 'composite', documentation: 'code$value-quantity, e.g. http://loinc.org|8867-4$gt120.' },
  { name: 'component-code-value-quantity', type: 'composite', documentation: 'component-code$component-value-quantity, e.g. http://loinc.org|8480-6$ge140.' },
  { name: 'combo-code-value-quantity', type: 'composite', documentation: 'combo-code$combo-value-quantity.' },
  { name: '_lastUpdated', type: 'date' },
  { name: '_source', type: 'uri', documentation: 'Absent or the native source: mobile-health store; a FHIR Source URI: the auxiliary store.' },
];

/** `GET`/`POST Observation/$lastn`: each code's newest readings of a patient (`./lastn.ts`); a POST takes the same parameters as a Parameters body. */
export const lastnOperation: FhirOperation = {
  level: 'type',
  type: 'Observation',
  name: 'lastn',
  definition: 'http://hl7.org/fhir/OperationDefinition/Observation-lastn',
  documentation: "Each code's newest max readings of the patient (patient or subject required; code, category, max, and every search parameter).",
  early: (req) => {
    const parsed = parsedEarly(() => {
      const params = new URLSearchParams(operationParameters(req.method, req.query, req.body, 'A POST $lastn').map((p) => [p.name, parameterText(p)]));
      return { params, request: parseLastn(params) };
    });
    return earlyRead<EarlyLastn | undefined>({
      ...('value' in parsed ? { prepare: async (claimedPatient: number | undefined) => beginLastn(parsed.value.request, claimedPatient) } : {}),
      handler: async (req, prepared) => {
        if ('error' in parsed) throw parsed.error;
        const { params, request } = parsed.value;
        enforceHandling(req.headers['prefer'], request.query.ignored);
        const rows = await lastn(req.caller, request, Date.now(), await prepared);
        req.audit.touched(rows.map((r) => r.patientId));
        const codes = await codesById(rows.map((r) => r.codeId));
        const site = fhirSiteOf(req);
        const bundle = searchsetBundle(linkedSearch(site, 'Observation', params, observationPositions(request.query.order)), {
          resources: rows.map((o) => toFhirObservation(o, codes.get(o.codeId)!)),
          total: rows.length,
          ignored: request.query.ignored,
        });
        const query = params.toString();
        bundle.link = [{ relation: 'self', url: `${site.origin}${site.base}/Observation/$lastn${query ? `?${query}` : ''}` }];
        return fhirJson(200, bundle);
      },
    });
  },
};

/** The Observation type of the FHIR registry and the batch upload, over an auxiliary store. */
export function observationEndpoints(auxiliary: AuxiliaryHandover = AUXILIARY_NOT_AVAILABLE): {
  entry: FhirTypeEntry;
  batch: (req: AuthedRequest) => Promise<HttpResponse>;
} {
  return {
    entry: {
      type: 'Observation',
      documentation: 'Mobile-health Observations (Open mHealth / IEEE 1752 payloads) are stored natively; other Observations in the auxiliary store.',
      searchParams: () => SEARCH_PARAMS,
      auth: 'per-request',
      handlers: {
        search: (req, params) => search(req, params, auxiliary),
        read: (_req, id) => read(id, auxiliary),
        vread: (_req, id, versionId) => vread(id, versionId, auxiliary),
        update: writeOf('update', auxiliary),
        patch: writeOf('patch', auxiliary),
        delete: writeOf('delete', auxiliary),
        create: () => create(auxiliary),
      },
    },
    batch: async (req) => {
      const upload = uploadRequest(req, auxiliary, 'reading');
      const results = await processEntries(parseBatchBundle(req.body), upload);
      recordUpload(req, results);
      // Nothing started before the deadline (the store is too slow for this batch now): the whole batch again, later.
      if (results.length > 0 && results.every((r) => r.unfinished === 'not-started')) throw batchNotStarted(results.length);
      return fhirJson(200, batchResponse(results), retryAfterHeader(results));
    },
  };
}
