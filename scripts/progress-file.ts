/** The progress of a resumable operator command, kept in a JSON file written whole (a stop mid-write leaves the previous one). */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

export function readProgress<T>(file: string): T | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as T) : undefined;
}

export function writeProgress(file: string, progress: unknown): void {
  writeFileSync(`${file}.tmp`, JSON.stringify(progress));
  renameSync(`${file}.tmp`, file);
}
