/**
 * A whole table read by a parallel Scan in segments, each segment's position kept in a progress
 * value the caller saves after every page: what an operator's table-wide command (the move of the
 * observations to a new layout, the rebuild of every day summary) runs on, so a run stopped anywhere resumes where it was. Strongly
 * consistent; throttling is retried by the SDK and the caller's work per page.
 */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from './clients';
import { sideBySide } from './side-by-side';

export type Item = Record<string, unknown>;

export interface ScanProgress {
  /** Per Scan segment: where it stopped (undefined before its first page), and whether it is done. */
  segments: Array<{ start?: Item; done: boolean }>;
}

export const freshSegments = (segments: number): ScanProgress['segments'] =>
  Array.from({ length: Math.max(1, Math.min(64, segments)) }, () => ({ done: false }));

export interface ScanOptions {
  table: string;
  progress: ScanProgress;
  /** Only the items this filter keeps reach `onPage` (the Scan still reads every item). */
  filter?: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> };
  /** Only these attributes of each item (all when absent): a page to send is smaller, though the Scan reads whole items. */
  attributes?: readonly string[];
  pageSize?: number;
  /** The page's items; the segment's position moves on only once it settles. */
  onPage: (items: Item[]) => Promise<void>;
  /** Called after every page, with the progress as it now stands. */
  save?: () => void | Promise<void>;
}

/** The expression attributes of a filter and a projection, named apart (`#a<n>` for the projection's). */
function expressionOf(options: ScanOptions) {
  const { filter, attributes } = options;
  const names: Record<string, string> = { ...filter?.names };
  attributes?.forEach((a, i) => (names[`#a${i}`] = a));
  return {
    ...(filter ? { FilterExpression: filter.expression, ...(filter.values ? { ExpressionAttributeValues: filter.values } : {}) } : {}),
    ...(attributes ? { ProjectionExpression: attributes.map((_, i) => `#a${i}`).join(', ') } : {}),
    ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
  };
}

export async function scanInSegments(options: ScanOptions): Promise<void> {
  const { progress } = options;
  const total = progress.segments.length;
  const expression = expressionOf(options);
  await sideBySide(progress.segments, async (segment, index, stopped) => {
    while (!segment.done && !stopped()) {
      const page = await dynamo().send(
        new ScanCommand({
          TableName: options.table,
          Segment: index,
          TotalSegments: total,
          Limit: options.pageSize ?? 500,
          ConsistentRead: true,
          ...(segment.start ? { ExclusiveStartKey: segment.start } : {}),
          ...expression,
        }),
      );
      await options.onPage(page.Items ?? []);
      if (page.LastEvaluatedKey) segment.start = page.LastEvaluatedKey;
      else {
        delete segment.start;
        segment.done = true;
      }
      await options.save?.();
    }
  });
}
