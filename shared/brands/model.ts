/**
 * The hospital directory the portal's picker searches, in the service's own terms: what a
 * User-access Brands file (`bundle.ts`) is reduced to, kept per list (one operator-named list per
 * loaded file, `import.ts`) and searched (`search.ts`). Plain data, the same in the store and in
 * memory.
 */

/** One address of a facility, as the picker shows it. */
export interface FacilityAddress {
  /** Street lines, city, state and postal code as one line. */
  text: string;
  city?: string;
  state?: string;
  postalCode?: string;
}

/** A place a patient recognises: a brand itself or a facility `partOf` it. */
export interface Facility {
  name: string;
  /** Former or other names (`Organization.alias`), searched like the name. */
  aliases?: string[];
  brandName: string;
  addresses: FacilityAddress[];
}

/** Everything reached through one FHIR base URL: the unit an import adds, updates or retires. */
export interface BrandEntry {
  fhirBaseUrl: string;
  /** The endpoint's declared FHIR version (`4.0.1`, `5.0.0`), when it declares one. */
  fhirVersion?: string;
  facilities: Facility[];
}

/** One loaded file's worth of entries, under the name the operator gave it. */
export interface BrandList {
  name: string;
  /** The file's `Bundle.timestamp` (or `meta.lastUpdated`), when it has one: a later file must not be older. */
  timestamp?: string;
  importedAt: string;
  /** A digest of `entries`: the same file loaded again is no change. */
  digest: string;
  /** In FHIR base URL order. */
  entries: BrandEntry[];
}

export interface BrandDirectory {
  /** In name order. */
  lists: BrandList[];
}

/** What the head of the published directory says about one list. */
export interface ListSummary {
  name: string;
  timestamp?: string;
  importedAt: string;
  digest: string;
  brands: number;
  facilities: number;
}

/** The published version of the directory: what a search checks first. */
export interface DirectoryHead {
  version: string;
  publishedAt: string;
  lists: ListSummary[];
}

export const summaryOf = (list: BrandList): ListSummary => ({
  name: list.name,
  ...(list.timestamp ? { timestamp: list.timestamp } : {}),
  importedAt: list.importedAt,
  digest: list.digest,
  brands: list.entries.length,
  facilities: list.entries.reduce((n, e) => n + e.facilities.length, 0),
});
