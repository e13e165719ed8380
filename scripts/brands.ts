/**
 * The brands directory's operator command (`npm run brands -- <command>`, through
 * `local/brands.ts`, which finds the tables: a running `npm start`'s, or a deployed stack's when
 * `BRANDS_TABLE` is set). Commands:
 *
 *   import <file> [--list <name>]   load a User-access Brands Bundle as the list <name> (default: the file's name)
 *   lists                           the lists loaded, with their counts
 *   remove <name>                   remove a list
 *   search [<words>] [--state <code>] [--postal <code>] [--limit <n>]   what the picker would show
 *
 * docs/portal.md#loading-a-vendors-brands-file says how to get a vendor's file and load it.
 */
import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import { parseArgs } from 'node:util';
import { brandLists, BrandsFileError, importBrands, removeBrandList, type ImportReport } from '../shared/brands/import';
import { DEFAULT_BRAND_LIMIT, MAX_BRAND_LIMIT, searchBrands } from '../shared/brands/search';
import { UsageError } from './usage-error';

export const BRANDS_USAGE = `usage: npm run brands -- import <file> [--list <name>]
       npm run brands -- lists
       npm run brands -- remove <name>
       npm run brands -- search [<words>] [--state <code>] [--postal <code>] [--limit <n>]`;

/** The list name a file is loaded under when none is given: its name without the extension. */
export const defaultListName = (file: string) => basename(file, extname(file)).replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 64) || 'brands';

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** The lines an import prints. */
export function describeImport(report: ImportReport): string[] {
  const counts = `${plural(report.brands, 'FHIR endpoint')}, ${plural(report.facilities, 'facility', 'facilities')}`;
  const lines =
    report.outcome === 'unchanged'
      ? [`list "${report.list}": unchanged (${counts}); nothing was written`]
      : [`list "${report.list}": loaded ${counts}: ${report.added.length} added, ${report.updated.length} updated, ${report.retired.length} retired`];
  for (const url of report.retired) lines.push(`  retired ${url}`);
  for (const [reason, count] of report.skipped) lines.push(`  skipped ${count} x ${reason}`);
  return lines;
}

/** Runs one command; the lines to print, or throws (a BrandsFileError for a refused file). */
export async function runBrandsCommand(argv: readonly string[]): Promise<string[]> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: { list: { type: 'string' }, state: { type: 'string' }, postal: { type: 'string' }, limit: { type: 'string' } },
  });
  const [command, ...rest] = positionals;
  switch (command) {
    case 'import': {
      const [file] = rest;
      if (!file || rest.length > 1) throw new UsageError(BRANDS_USAGE);
      let value: unknown;
      try {
        value = JSON.parse(readFileSync(file, 'utf8'));
      } catch (e) {
        throw new BrandsFileError([`${file} is not a readable JSON file (${e instanceof Error ? e.message : String(e)})`]);
      }
      return describeImport(await importBrands(values.list ?? defaultListName(file), value));
    }
    case 'lists': {
      const lists = await brandLists();
      if (lists.length === 0) return ['no lists loaded'];
      return lists.map((l) => `${l.name}: ${plural(l.brands, 'FHIR endpoint')}, ${plural(l.facilities, 'facility', 'facilities')}; file of ${l.timestamp ?? 'unknown date'}, loaded ${l.importedAt}`);
    }
    case 'remove': {
      const [name] = rest;
      if (!name || rest.length > 1) throw new UsageError(BRANDS_USAGE);
      return [(await removeBrandList(name)) ? `list "${name}" removed` : `no list "${name}"`];
    }
    case 'search': {
      const limit = Math.min(MAX_BRAND_LIMIT, Math.max(1, Number(values.limit ?? DEFAULT_BRAND_LIMIT) || DEFAULT_BRAND_LIMIT));
      const results = await searchBrands({ q: rest.join(' '), ...(values.state ? { state: values.state } : {}), ...(values.postal ? { postal: values.postal } : {}), limit });
      return results.map((r) => `${r.facility_name} (${r.brand_name}) ${r.address_text ? `- ${r.address_text} ` : ''}-> ${r.fhir_base_url}`);
    }
    default:
      throw new UsageError(BRANDS_USAGE);
  }
}

