/**
 * Loading a Brands file into the directory (`npm run brands -- import`), and removing a list.
 *
 * The directory is a set of lists, one per file an operator loads, under a name they choose (a
 * vendor's file, the local sample). Loading a file replaces its list as a whole: entries are keyed
 * by FHIR base URL, so an entry of the earlier file that the new one still has is kept (updated if
 * it changed), one it no longer has is retired, and readers see either the old list or the new
 * one, never a mix (the store publishes a new version at once). The same file loaded again changes
 * nothing; a file older than the one loaded (by `Bundle.timestamp`) is refused.
 */
import { createHash } from 'node:crypto';
import { parseBrandsBundle, BrandsFileError } from './bundle';
import type { BrandDirectory, BrandEntry, BrandList, DirectoryHead } from './model';
import { brandStore } from './store/current';

export { BrandsFileError } from './bundle';

/** List names: what an operator types, safe in any log line. */
const LIST_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Publications tried while other loads keep coming first. */
const PUBLISH_ATTEMPTS = 5;

export interface ImportReport {
  list: string;
  /** `unchanged`: the list already held exactly these entries; nothing was written. */
  outcome: 'published' | 'unchanged';
  brands: number;
  facilities: number;
  /** FHIR base URLs, each in one of the three. */
  added: string[];
  updated: string[];
  retired: string[];
  skipped: Map<string, number>;
}

export function checkListName(name: string): string {
  if (!LIST_NAME.test(name)) throw new BrandsFileError([`the list name "${name}" is not 1-64 letters, digits, ".", "_" or "-" (starting with a letter or digit)`]);
  return name;
}

const digestOf = (entries: readonly BrandEntry[]) => createHash('sha256').update(JSON.stringify(entries)).digest('hex');

/** The published directory and the head that names it (an empty one before the first load). */
async function published(): Promise<{ head: DirectoryHead | undefined; directory: BrandDirectory }> {
  for (let attempt = 0; attempt < PUBLISH_ATTEMPTS; attempt += 1) {
    const head = await brandStore().head();
    if (!head) return { head, directory: { lists: [] } };
    const directory = await brandStore().read(head.version);
    if (directory) return { head, directory };
  }
  throw new Error('the brands directory kept changing while it was read; try again');
}

/** Publishes `change(directory)` on the latest version, again on a newer one while other loads come first. */
async function publishChange(change: (directory: BrandDirectory) => BrandDirectory | undefined, now: Date): Promise<DirectoryHead | undefined> {
  for (let attempt = 0; attempt < PUBLISH_ATTEMPTS; attempt += 1) {
    const { head, directory } = await published();
    const next = change(directory);
    if (!next) return undefined;
    const done = await brandStore().publish(next, head?.version, now.toISOString());
    if (done) return done;
  }
  throw new Error('other loads of the brands directory kept coming first; try again');
}

const withList = (directory: BrandDirectory, list: BrandList): BrandDirectory => ({
  lists: [...directory.lists.filter((l) => l.name !== list.name), list].sort((a, b) => (a.name < b.name ? -1 : 1)),
});

/** Loads a parsed Brands Bundle as the list `name`. Throws BrandsFileError when the file is refused (nothing changes then). */
export async function importBrands(name: string, value: unknown, now = new Date()): Promise<ImportReport> {
  checkListName(name);
  const parsed = parseBrandsBundle(value);
  const list: BrandList = {
    name,
    ...(parsed.timestamp ? { timestamp: parsed.timestamp } : {}),
    importedAt: now.toISOString(),
    digest: digestOf(parsed.entries),
    entries: parsed.entries,
  };
  let before: BrandList | undefined;
  const head = await publishChange((directory) => {
    before = directory.lists.find((l) => l.name === name);
    if (before?.timestamp && list.timestamp && Date.parse(list.timestamp) < Date.parse(before.timestamp)) {
      throw new BrandsFileError([`the file's timestamp ${list.timestamp} is older than that of the list "${name}" loaded before (${before.timestamp}); load the newer file, or remove the list first`]);
    }
    return before?.digest === list.digest ? undefined : withList(directory, list);
  }, now);
  const earlier = new Map((before?.entries ?? []).map((e) => [e.fhirBaseUrl, JSON.stringify(e)]));
  const later = new Set(list.entries.map((e) => e.fhirBaseUrl));
  return {
    list: name,
    outcome: head ? 'published' : 'unchanged',
    brands: list.entries.length,
    facilities: list.entries.reduce((n, e) => n + e.facilities.length, 0),
    added: head ? list.entries.filter((e) => !earlier.has(e.fhirBaseUrl)).map((e) => e.fhirBaseUrl) : [],
    updated: head ? list.entries.filter((e) => earlier.has(e.fhirBaseUrl) && earlier.get(e.fhirBaseUrl) !== JSON.stringify(e)).map((e) => e.fhirBaseUrl) : [],
    retired: head ? [...earlier.keys()].filter((url) => !later.has(url)) : [],
    skipped: parsed.skipped,
  };
}

/** Removes the list `name`; false when there is none. */
export async function removeBrandList(name: string, now = new Date()): Promise<boolean> {
  checkListName(name);
  const head = await publishChange((directory) => (directory.lists.some((l) => l.name === name) ? { lists: directory.lists.filter((l) => l.name !== name) } : undefined), now);
  return head !== undefined;
}

/** The lists of the published directory (summaries from its head). */
export async function brandLists(): Promise<DirectoryHead['lists']> {
  return (await brandStore().head())?.lists ?? [];
}
