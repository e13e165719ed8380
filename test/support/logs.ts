/**
 * The JSON lines a piece of code writes (log lines through Powertools Logger: info on stdout, warn
 * and error on stderr; metric lines in CloudWatch's Embedded Metric Format on stdout), read back as
 * objects while `run` runs. Other output passes through.
 */
import { vi } from 'vitest';

type Line = Record<string, any>;

function tap(stream: NodeJS.WriteStream, lines: Line[]) {
  const write = stream.write.bind(stream);
  return vi.spyOn(stream, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    let ours = false;
    for (const line of text.split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        lines.push(JSON.parse(line));
        ours = true;
      } catch {
        // not a JSON line: passes through below
      }
    }
    return ours || write(chunk as string, ...(rest as []));
  }) as typeof stream.write);
}

export async function capturedLines<T>(run: () => Promise<T>): Promise<{ result: T; lines: Line[] }> {
  const lines: Line[] = [];
  const spies = [tap(process.stdout, lines), tap(process.stderr, lines)];
  try {
    return { result: await run(), lines };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/**
 * Metric values of the EMF lines: for each metric name, the sum of its values under each dimension
 * set it was emitted with (`service=fhir`, `service=fhir,status=409`, ...).
 */
export function metricTotals(lines: readonly Line[]): Map<string, Record<string, number>> {
  const totals = new Map<string, Record<string, number>>();
  for (const line of lines) {
    for (const directive of line._aws?.CloudWatchMetrics ?? []) {
      for (const set of directive.Dimensions as string[][]) {
        const key = set.map((d) => `${d}=${line[d]}`).join(',');
        for (const { Name } of directive.Metrics as Array<{ Name: string }>) {
          const value = line[Name];
          const byDimensions = totals.get(Name) ?? {};
          byDimensions[key] = (byDimensions[key] ?? 0) + (Array.isArray(value) ? value.reduce((x: number, y: number) => x + y, 0) : Number(value));
          totals.set(Name, byDimensions);
        }
      }
    }
  }
  return totals;
}
