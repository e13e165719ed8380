/**
 * The files one part writes: one open file per resource type (opened at its first line), closed and
 * followed by the next of its type before it would grow past the size setting, plus a file of
 * OperationOutcomes for what could not be exported. Lines stream into the store's writers in chunks
 * of a few hundred KB, so memory holds at most a chunk and one unsent upload part of each open file.
 */
import { config } from '../config';
import type { OperationOutcome } from '../fhir/outcome';
import { fileName, type ExportFile } from './model';
import { exportStore } from './store/current';
import type { FileWriter } from './store/port';

interface OpenFile {
  writer: FileWriter;
  file: ExportFile;
  /** Lines not yet handed to the writer, and their length. */
  pending: string[];
  pendingLength: number;
}

/** Lines are handed to a file's writer in chunks of about this many characters: a few calls a run of rows, not one a line. */
const CHUNK = 256 * 1024;

const ERRORS = 'OperationOutcome';

export class PartFiles {
  private readonly open = new Map<string, OpenFile>();
  private readonly done: ExportFile[] = [];
  /** Files begun per type (their numbers). */
  private readonly begun = new Map<string, number>();

  constructor(
    private readonly jobId: string,
    private readonly part: number,
    private readonly maxBytes = config().exports.fileMaxBytes,
  ) {}

  /** Adds a resource to its type's file. */
  add(resource: { resourceType: string }): Promise<void> {
    return this.lines(resource.resourceType, [JSON.stringify(resource)], false);
  }

  /**
   * Adds resources of `type` given as their JSON text (a line each: JSON text holds no raw line
   * break). A run of rows is one call, which waits only where a chunk is handed over or a file
   * begins, not once a line.
   */
  addJson(type: string, texts: Iterable<string>): Promise<void> {
    return this.lines(type, texts, false);
  }

  /** Records what could not be exported, in the part's error file. */
  error(outcome: OperationOutcome): Promise<void> {
    return this.lines(ERRORS, [JSON.stringify(outcome)], true);
  }

  private async lines(type: string, texts: Iterable<string>, error: boolean): Promise<void> {
    for (const json of texts) {
      const text = `${json}\n`;
      const bytes = Buffer.byteLength(text, 'utf8');
      // Looked up each line: while this call waited, another adding to the same type (a part's
      // readings and its auxiliary Observations) may have closed the file and begun the next.
      let current = this.open.get(type);
      while (current && current.file.bytes + bytes > this.maxBytes) {
        await this.closeFile(type, current);
        // Another call may have begun the next file meanwhile: this line goes there (never a file left open).
        current = this.open.get(type);
      }
      current ??= this.begin(type, error);
      current.pending.push(text);
      current.pendingLength += text.length;
      current.file.count += 1;
      current.file.bytes += bytes;
      if (current.pendingLength >= CHUNK) await this.flush(current);
    }
  }

  /** Opens the next file of `type`. */
  private begin(type: string, error: boolean): OpenFile {
    const n = (this.begun.get(type) ?? 0) + 1;
    this.begun.set(type, n);
    const name = fileName(this.part, type, n);
    const opened: OpenFile = { writer: exportStore().files.open(this.jobId, name), file: { name, type, count: 0, bytes: 0, ...(error ? { error: true as const } : {}) }, pending: [], pendingLength: 0 };
    this.open.set(type, opened);
    return opened;
  }

  private async flush(current: OpenFile): Promise<void> {
    if (current.pending.length === 0) return;
    const chunk = current.pending.join('');
    current.pending = [];
    current.pendingLength = 0;
    await current.writer.write(chunk);
  }

  private async closeFile(type: string, current: OpenFile): Promise<void> {
    this.open.delete(type);
    await this.flush(current);
    await current.writer.close();
    this.done.push(current.file);
  }

  /** Completes every open file, all at once (each its own upload); the part's files, in the order they were begun. */
  async close(): Promise<ExportFile[]> {
    // Every upload settled before a failure is thrown: none of them lands after the part runs again.
    const closed = await Promise.allSettled([...this.open].map(([type, current]) => this.closeFile(type, current)));
    const failed = closed.find((c) => c.status === 'rejected');
    if (failed) throw failed.reason;
    return [...this.done].sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
  }

  /** Gives up every open file (a part that failed is run again from the start). */
  async abort(): Promise<void> {
    const open = [...this.open.values()];
    this.open.clear();
    await Promise.all(open.map((f) => f.writer.abort().catch(() => undefined)));
  }
}
