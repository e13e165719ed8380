/** Reads the standard's packages (devDependencies) as plain JSON resources. */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export type Json = Record<string, any>;

const require = createRequire(import.meta.url);

/** Folder of an installed package (its package.json's folder). */
export function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

/** Every `<resourceType>-*.json` file of a package folder, parsed, in file-name order. */
export function readResources(dir: string, resourceType: string): Json[] {
  return readdirSync(dir)
    .filter((f) => f.startsWith(`${resourceType}-`) && f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Json)
    .filter((r) => r.resourceType === resourceType);
}

export function packageVersion(dir: string): string {
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Json).version as string;
}

/** Last path segment of a canonical URL: `.../StructureDefinition/Patient` -> `Patient`. */
export function lastSegment(url: string): string {
  return url.replace(/\|.*$/, '').split('/').pop()!;
}

/** Canonical URL without its `|version`. */
export function unversioned(url: string): string {
  return url.replace(/\|.*$/, '');
}
