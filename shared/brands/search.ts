/**
 * Searching the brands directory (`GET /api/v1/portal/brands`): an in-memory index of the
 * published version, built once per version and warm function, and the ranking of a query on it.
 *
 * Matching folds case, accents and punctuation on both sides ("Saint-Étienne" = "saint etienne").
 * Every word of the query must be found in a facility's name (or a former name), its brand's name
 * or one of its cities: as the start of a word there, or else anywhere inside one. Best first: the
 * whole query as the facility's name, then as the start of it, then as the brand's name or a city;
 * then words found at the start of a word of the name before the brand, before a city, before
 * inside a word; then shorter names first, then by name. `state` (the address's code as written,
 * folded) and `postal` (the start of the postal code) filter on one and the same address, which is
 * the one shown.
 */
import type { BrandDirectory, Facility, FacilityAddress } from './model';
import { brandStore } from './store/current';
import type { BrandStore } from './store/port';

export const DEFAULT_BRAND_LIMIT = 25;
export const MAX_BRAND_LIMIT = 100;

export interface BrandQuery {
  q?: string;
  state?: string;
  postal?: string;
  limit: number;
}

/** One row of the answer, in the shape the picker (and the reference's clients) read. */
export interface BrandResult {
  facility_name: string;
  address_text: string;
  city: string;
  state: string;
  postal_code: string;
  brand_name: string;
  fhir_base_url: string;
}

const SPECIAL_LETTERS = new Map(Object.entries({ ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i' }));

/** Text as it is compared: no case, no accents, letters and digits only, single spaces. */
export function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[ßæœøłđðþı]/g, (c) => SPECIAL_LETTERS.get(c) ?? c)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

const foldPostal = (code: string) => fold(code).replace(/ /g, '');

interface Row {
  facility: Facility;
  url: string;
  /** The folded name; the folded name and former names, brand name and cities, each after a space (every word then starts after one). */
  name: string;
  names: string;
  brand: string;
  cities: string;
  /** The folded cities of the addresses. */
  cityList: string[];
  addresses: Array<{ address: FacilityAddress; state: string; postal: string; city: string }>;
}

export interface BrandIndex {
  /** In folded-name order, so an empty query lists by name and ties keep that order. */
  rows: Row[];
  /**
   * Each row's searched fields joined in one text, in the rows' order, apart from the rows: a word
   * of the query not in it rules a row out with one scan, before the row itself is read.
   */
  haystacks: string[];
  /**
   * The same texts as one string (`\n` between rows) and where each row starts in it: the
   * longest word of a query is found with the engine's own string search from match to match,
   * so a search visits only the rows that have it, not all 50,000.
   */
  text: string;
  starts: Int32Array;
}

/** The row whose text holds the offset `at` (the last row starting at or before it). */
function rowAt(starts: Int32Array, at: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= at) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** The same text in V8's compact one-byte form when it is ASCII (the folded text nearly always is), which `includes` scans fastest. */
const compact = (text: string) => (/^[\x00-\x7f]*$/.test(text) ? Buffer.from(text, 'latin1').toString('latin1') : text);

/** The index of a directory; where two lists name the same FHIR base URL, the one loaded last wins. */
export function buildIndex(directory: BrandDirectory): BrandIndex {
  const rows: Row[] = [];
  const seen = new Set<string>();
  const lists = [...directory.lists].sort((a, b) => (a.importedAt < b.importedAt ? 1 : a.importedAt > b.importedAt ? -1 : 0));
  for (const list of lists) {
    for (const entry of list.entries) {
      if (seen.has(entry.fhirBaseUrl)) continue;
      seen.add(entry.fhirBaseUrl);
      for (const facility of entry.facilities) {
        const addresses = facility.addresses.map((address) => ({
          address,
          state: fold(address.state ?? ''),
          postal: foldPostal(address.postalCode ?? ''),
          city: fold(address.city ?? ''),
        }));
        const name = fold(facility.name);
        const names = compact(` ${[name, ...(facility.aliases ?? []).map(fold)].join(' ')}`);
        const cityList = [...new Set(addresses.map((a) => a.city).filter(Boolean))];
        rows.push({ facility, url: entry.fhirBaseUrl, name, names, brand: compact(` ${fold(facility.brandName)}`), cities: compact(` ${cityList.join(' ')}`), cityList, addresses });
      }
    }
  }
  rows.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  const haystacks = rows.map((r) => compact(`${r.names}|${r.brand}|${r.cities}`));
  const starts = new Int32Array(haystacks.length);
  let at = 0;
  haystacks.forEach((h, i) => {
    starts[i] = at;
    at += h.length + 1;
  });
  return { rows, haystacks, text: compact(haystacks.join('\n')), starts };
}

/** A word of the query, and the same after a space (the start of a word of a field), made once per search. */
interface Term {
  text: string;
  spaced: string;
}

/** A row's score for the query's words (0: no match). */
function scoreOf(row: Row, whole: string, terms: readonly Term[]): number {
  let score = 0;
  for (const term of terms) {
    if (row.names.includes(term.spaced)) score += 8;
    else if (row.brand.includes(term.spaced)) score += 6;
    else if (row.cities.includes(term.spaced)) score += 4;
    // Inside a word.
    else if (row.names.includes(term.text) || row.brand.includes(term.text) || row.cities.includes(term.text)) score += 1;
    else return 0;
  }
  if (row.name === whole) score += 400;
  else if (row.name.startsWith(whole)) score += 200;
  if (row.brand.length === whole.length + 1 && row.brand.endsWith(whole)) score += 100;
  else if (row.brand.startsWith(whole, 1)) score += 50;
  if (row.cityList.includes(whole)) score += 50;
  return score;
}

interface Ranked {
  row: Row;
  score: number;
  order: number;
}

/** Better first: higher score, then the shorter name, then the index's (name) order. */
const better = (a: Ranked, b: Ranked) => (a.score !== b.score ? a.score > b.score : a.row.name.length !== b.row.name.length ? a.row.name.length < b.row.name.length : a.order < b.order);

export function searchIndex(index: BrandIndex, query: BrandQuery): BrandResult[] {
  const whole = fold(query.q ?? '');
  const terms: Term[] = whole ? whole.split(' ').map((text) => ({ text, spaced: ` ${text}` })) : [];
  const state = query.state ? fold(query.state) : '';
  const postal = query.postal ? foldPostal(query.postal) : '';
  const filtered = Boolean(state || postal);
  const passes = (row: Row) => !filtered || row.addresses.some((a) => (!state || a.state === state) && (!postal || a.postal.startsWith(postal)));
  // No words: the facilities that pass the filters, by name (the index's order).
  if (terms.length === 0) {
    const listed: BrandResult[] = [];
    for (const row of index.rows) {
      if (listed.length === query.limit) break;
      if (passes(row)) listed.push(resultOf(row, state, postal, terms));
    }
    return listed;
  }
  const top: Ranked[] = [];
  const { rows, haystacks, text, starts } = index;
  // The rows that have the longest word, in order: from one match of it to the next row's start.
  const longest = terms.reduce((a, b) => (b.text.length > a.text.length ? b : a));
  candidates: for (let at = text.indexOf(longest.text); at !== -1; ) {
    const order = rowAt(starts, at);
    at = order + 1 < starts.length ? text.indexOf(longest.text, starts[order + 1]!) : -1;
    // A row without one of the other words is out after one scan of its text.
    const haystack = haystacks[order]!;
    for (const term of terms) if (term !== longest && !haystack.includes(term.text)) continue candidates;
    const row = rows[order]!;
    if (filtered && !passes(row)) continue;
    const score = scoreOf(row, whole, terms);
    if (score === 0) continue;
    // Worse than the last of a full list (rows come in name order: a tie is worse): left out without a record of it.
    const last = top.length === query.limit ? top[top.length - 1]! : undefined;
    if (last && (score < last.score || (score === last.score && row.name.length >= last.row.name.length))) continue;
    const ranked = { row, score, order };
    // A sorted list of at most `limit` (100): the insertion is short, and most rows never get in.
    let slot = top.length;
    while (slot > 0 && better(ranked, top[slot - 1]!)) slot -= 1;
    top.splice(slot, 0, ranked);
    if (top.length > query.limit) top.pop();
  }
  return top.map(({ row }) => resultOf(row, state, postal, terms));
}

/** The address shown: the first that passes the filters, preferring one in a city the query names. */
function shownAddress(row: Row, state: string, postal: string, terms: readonly Term[]): FacilityAddress | undefined {
  const passing = row.addresses.filter((a) => (!state || a.state === state) && (!postal || a.postal.startsWith(postal)));
  return (passing.find((a) => a.city && terms.some((t) => ` ${a.city}`.includes(t.spaced))) ?? passing[0])?.address;
}

function resultOf(row: Row, state: string, postal: string, terms: readonly Term[]): BrandResult {
  const address = shownAddress(row, state, postal, terms);
  return {
    facility_name: row.facility.name,
    address_text: address?.text ?? '',
    city: address?.city ?? '',
    state: address?.state ?? '',
    postal_code: address?.postalCode ?? '',
    brand_name: row.facility.brandName,
    fhir_base_url: row.url,
  };
}

/** The index of the version a warm function last read, with the store it came from. */
let loaded: { store: BrandStore; version: string; index: Promise<BrandIndex | undefined> } | undefined;

/**
 * Searches the published directory: one read of the head per request; the index is rebuilt only
 * when the head names a version this process has not indexed yet (docs/store.md#the-brands-directory).
 */
export async function searchBrands(query: BrandQuery): Promise<BrandResult[]> {
  const store = brandStore();
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const head = await store.head();
    if (!head) return [];
    let current = loaded;
    if (current?.store !== store || current.version !== head.version) {
      const index = store.read(head.version).then((directory) => directory && buildIndex(directory));
      current = loaded = { store, version: head.version, index };
      const failed = current;
      index.catch(() => {
        if (loaded === failed) loaded = undefined;
      });
    }
    const index = await current.index;
    // Undefined: that version was retired between the two reads; the head names a newer one.
    if (index) return searchIndex(index, query);
    if (loaded === current) loaded = undefined;
  }
  return [];
}
