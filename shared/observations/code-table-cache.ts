/**
 * The code table as the observation paths read it: rendered on every row (`code.coding`) and looked
 * up on every upload, it is small (tens of rows) and codes never change system or code, so a
 * process keeps it for a minute and reloads it when asked for a code it does not know (a search
 * naming one, at most every few seconds).
 */
import { listCodes } from '../directory/code-table';
import type { Code, Id } from '../directory/model';

const TTL_MS = 60_000;

interface Table {
  byId: Map<Id, Code>;
  byCoding: Map<string, Code>;
  all: Code[];
  loadedAt: number;
}

let cached: Promise<Table> | undefined;
let loadedAt = 0;

const codingKey = (system: string, code: string) => `${system}\u0000${code}`;

async function load(): Promise<Table> {
  const all = await listCodes();
  return { all, byId: new Map(all.map((c) => [c.id, c])), byCoding: new Map(all.map((c) => [codingKey(c.system, c.code), c])), loadedAt: Date.now() };
}

async function table(refresh = false): Promise<Table> {
  if (!cached || refresh || Date.now() - loadedAt > TTL_MS) {
    loadedAt = Date.now();
    cached = load();
    cached.catch(() => {
      cached = undefined;
    });
  }
  return cached;
}

/** Looks the code up, reloading the table once when it is not (yet) known. */
async function lookup<T>(find: (t: Table) => T | undefined): Promise<T | undefined> {
  const hit = find(await table());
  return hit ?? find(await table(true));
}

export const codeByCoding = (system: string, code: string) => lookup((t) => t.byCoding.get(codingKey(system, code)));

/** Every code of the table. */
export async function allCodes(): Promise<readonly Code[]> {
  return (await table()).all;
}

/** Reloads for a request naming a code the table lacks are this far apart at least (unknown codes do not reload it each request). */
const RELOAD_GAP_MS = 5_000;
let reloadedForUnknown = -Infinity;

/**
 * Every code of the table, reloaded first when `lacks` says it lacks a code the request names (one
 * added on another instance since this one loaded it), unless such a reload was moments ago.
 */
export async function allCodesFor(lacks: (codes: readonly Code[]) => boolean): Promise<readonly Code[]> {
  const t = await table();
  if (!lacks(t.all) || Date.now() - reloadedForUnknown < RELOAD_GAP_MS) return t.all;
  reloadedForUnknown = Date.now();
  return (await table(true)).all;
}

/** Codes for ids, for rendering many rows at once (unknown ids are skipped). */
export async function codesById(ids: Iterable<Id>): Promise<Map<Id, Code>> {
  const wanted = [...new Set(ids)];
  let t = await table();
  if (wanted.some((id) => !t.byId.has(id))) t = await table(true);
  return new Map(wanted.filter((id) => t.byId.has(id)).map((id) => [id, t.byId.get(id)!]));
}

/** Forget the table (tests that add codes). */
export function forgetCodeTable(): void {
  cached = undefined;
  reloadedForUnknown = -Infinity;
}
