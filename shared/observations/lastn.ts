/**
 * `Observation/$lastn` (R5, http://hl7.org/fhir/OperationDefinition/Observation-lastn;
 * docs/api.md#the-latest-readings-observationlastn): for each patient in reach and each code, the
 * `max` newest readings (by effective start) that match the search parameters, grouped by code
 * (code-table order), newest first; readings tied with the last one kept are kept too. Each
 * (patient, code) is one read of the code index from the newest end, stopping once `max` readings
 * and their ties are found: the cost grows with the codes asked for, not with the readings stored.
 * When the request names one patient (or a patient token claims one), each code's first read is
 * begun as soon as the token's signature holds, while the account is confirmed and the reach
 * resolved (as a search's first page is, `likelyPatientOf`); nothing of it is kept unless the reach
 * allows that patient.
 */
import pMap from 'p-map';
import type { Caller } from '../auth/caller';
import type { Code, Id } from '../directory/model';
import type { TokenQuery } from '../fhir/search';
import { parseToken } from '../fhir/search/parse';
import { splitUnescaped } from '../fhir/search/values';
import { tokenMatches } from '../fhir/search/match';
import { badRequest } from '../http/errors';
import { categoryOf, OBSERVATION_CATEGORY_SYSTEM } from '../omh/categories';
import { schemaForCode } from '../omh/schemas/index';
import { allCodes } from './code-table-cache';
import type { ReadingFacts, StoredObservation } from './model';
import { startBoundsOf, storeTimeRange, WHOLE_HISTORY, type ReadingPeriod } from './period';
import { readReadings } from './read';
import type { ReadingsPage } from './store/port';
import { likelyPatientOf, reachOf } from './search/execute';
import { codeFilter } from './search/filters';
import { maxFetch } from './search/streams';
import { parseNativeQuery, type NativeQuery } from './search/query';

/** At most this many readings per code (R5 leaves it to the server). */
export const MAX_LASTN = 100;
/** (patient, code) reads at once. */
const CONCURRENCY = 8;

export interface LastnRequest {
  max: number;
  /** `category`: each an OR of categories; all must hold. */
  categories: TokenQuery[][];
  query: NativeQuery;
}

/** The operation's own parameters (`max`, `category`); the rest are the search's, parsed as a search parses them. */
export function parseLastn(params: URLSearchParams): LastnRequest {
  const rest = new URLSearchParams();
  let max = 1;
  const categories: TokenQuery[][] = [];
  let maxSeen = false;
  for (const [name, value] of params) {
    if (name === 'max') {
      if (maxSeen) throw badRequest('Give max once.').at('max');
      maxSeen = true;
      if (!/^[1-9][0-9]{0,5}$/.test(value) || Number(value) > MAX_LASTN) throw badRequest(`max must be a whole number from 1 to ${MAX_LASTN}.`).at('max');
      max = Number(value);
    } else if (name === 'category') {
      categories.push(splitUnescaped(value, ',').map(parseToken));
    } else if (name === '_count' || name === '_sort' || name.startsWith('_cursor')) {
      throw badRequest(`${name} does not apply to $lastn: it returns every code's newest readings in one page.`).at(name);
    } else {
      rest.append(name, value);
    }
  }
  const query = parseNativeQuery(rest);
  if (!query.scope.some((f) => f.patient !== undefined)) throw badRequest('$lastn needs patient or subject: the patient whose latest readings to return.', 'required').at('patient');
  return { max, categories, query };
}

/** Whether a code's category is one each `category` parameter allows. */
function inCategories(code: Code, categories: readonly TokenQuery[][]): boolean {
  if (categories.length === 0) return true;
  const category = categoryOf(code.code);
  if (!category) return false;
  return categories.every((alternatives) => alternatives.some((q) => tokenMatches({ s: OBSERVATION_CATEGORY_SYSTEM, c: category.code }, q)));
}

/**
 * A read of one patient's code from the newest end, within the query's period if it has one (its
 * dated readings only: an undated reading is never among the latest); the first asks one more than
 * wanted: it tells whether the last one kept has a tie. Undefined when no reading can start in it.
 */
function newestPage(patientId: Id, codeId: Id, period: ReadingPeriod | undefined, limit: number, start?: ReadingsPage['next']): Promise<ReadingsPage> {
  const time = storeTimeRange(startBoundsOf(period ?? WHOLE_HISTORY));
  return time ? readReadings({ patientId, order: 'effective', codeId, ascending: false, time }, limit, start) : Promise.resolve({ readings: [], next: undefined });
}

/** The newest `max` readings of one patient's code that pass `test`, and the ones tied with the last of them; `first`: its first read, begun already. */
async function newestOf(patientId: Id, codeId: Id, request: LastnRequest, test: (o: ReadingFacts) => boolean, first?: ReadingsPage): Promise<StoredObservation[]> {
  const { max } = request;
  const found: StoredObservation[] = [];
  let start: ReadingsPage['next'];
  // When the search's filters pass over rows, each further read asks for twice as many (as the
  // search's streams do), so a rare match is found in a few reads, not one read per row or two.
  let limit = max + 1;
  do {
    const page = first ?? (await newestPage(patientId, codeId, request.query.period, limit, start));
    first = undefined;
    limit = Math.min(maxFetch(), limit * 2);
    for (const reading of page.readings) {
      if (!test(reading)) continue;
      if (found.length >= max && reading.effective!.start !== found[max - 1]!.effective!.start) return found;
      found.push(reading);
    }
    start = page.next;
  } while (start);
  return found;
}

/** Whether the request asks for the code: one with a payload schema, in the categories asked. */
const asked = (request: LastnRequest) => (c: Code) => schemaForCode(c.code) !== undefined && inCategories(c, request.categories);

/** The first read of each code the request asks for, of the one patient it names (or a patient token claims), begun before the reach is known. */
export interface EarlyLastn {
  patientId: Id;
  pages: Promise<ReadonlyMap<Id, ReadingsPage>>;
}

/** Begins the first reads of the patient the request names, if one; nothing of them is shown unless the reach allows that patient. */
export function beginLastn(request: LastnRequest, claimedPatient: Id | undefined): EarlyLastn | undefined {
  const patientId = likelyPatientOf(request.query, claimedPatient === undefined ? undefined : { kind: 'patient', patientId: claimedPatient });
  if (patientId === undefined) return undefined;
  const pages = (async () => {
    const table = await allCodes();
    const filter = codeFilter(request.query, table);
    const codes = table.filter(asked(request)).filter((c) => !filter || filter.has(c.id));
    const read = await pMap(codes, (c) => newestPage(patientId, c.id, request.query.period, request.max + 1), { concurrency: CONCURRENCY });
    return new Map(read.map((page, i) => [codes[i]!.id, page]));
  })();
  pages.catch(() => undefined); // awaited by `lastn`, or dropped when the reach leaves the patient out
  return { patientId, pages };
}

/**
 * The readings `$lastn` answers, grouped by patient, then code (code-table order), newest first.
 * `early`: the first reads begun before the caller was confirmed (`beginLastn`); begun here otherwise.
 */
export async function lastn(caller: Caller, request: LastnRequest, now = Date.now(), early = beginLastn(request, caller.kind === 'patient' ? caller.patientId : undefined)): Promise<StoredObservation[]> {
  const { patients, codes, test } = await reachOf(caller, request.query, now);
  const firstPages = early && patients.includes(early.patientId) ? await early.pages : undefined;
  // Asked after the reach: it reloads the code table when the query names a code it lacked.
  const table = (await allCodes()).filter(asked(request));
  const reads = patients.flatMap((patientId) => {
    const allowed = codes.get(patientId);
    return table.filter((c) => !allowed || allowed.has(c.id)).map((c) => ({ patientId, codeId: c.id }));
  });
  const firstOf = (patientId: Id, codeId: Id) => (patientId === early?.patientId ? firstPages?.get(codeId) : undefined);
  const groups = await pMap(reads, ({ patientId, codeId }) => newestOf(patientId, codeId, request, test, firstOf(patientId, codeId)), { concurrency: CONCURRENCY });
  return groups.flat();
}
