/**
 * Numeric ids from atomic counters in the directory table, taken in blocks: one UpdateItem hands
 * a process a whole block, so ids cost a write per block, not per row. Ids of a block that a
 * process never uses are simply skipped; ids are unique, not gap-free.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config';
import { dynamo } from './clients';

export function counterKey(name: string) {
  return { pk: `COUNTER#${name}`, sk: 'COUNTER' };
}

export class IdBlocks {
  private next = 0;
  private end = 0;
  private refill: Promise<void> | undefined;

  constructor(
    readonly name: string,
    readonly blockSize: number,
  ) {}

  /** `count` fresh ids, in increasing order. */
  async take(count: number): Promise<number[]> {
    const ids: number[] = [];
    while (ids.length < count) {
      if (this.next >= this.end) await this.reserve(Math.max(this.blockSize, count - ids.length));
      // Another caller may have drained the block while this one awaited.
      while (this.next < this.end && ids.length < count) ids.push(this.next++);
    }
    return ids;
  }

  async one(): Promise<number> {
    return (await this.take(1))[0]!;
  }

  /** Drops the rest of the block held (its counter is gone with its store); the next id takes a new block. */
  forget(): void {
    this.next = 0;
    this.end = 0;
  }

  private async reserve(size: number): Promise<void> {
    if (!this.refill) {
      this.refill = (async () => {
        const out = await dynamo().send(
          new UpdateCommand({
            TableName: config().directoryTable,
            Key: counterKey(this.name),
            UpdateExpression: 'ADD #v :n',
            ExpressionAttributeNames: { '#v': 'value' },
            ExpressionAttributeValues: { ':n': size },
            ReturnValues: 'UPDATED_NEW',
          }),
        );
        const last = Number(out.Attributes?.value);
        this.next = last - size + 1;
        this.end = last + 1;
      })().finally(() => {
        this.refill = undefined;
      });
    }
    await this.refill;
  }
}

const allocators = new Map<string, IdBlocks>();

/** The process's allocator for a counter (one per name, so blocks are shared by all callers). */
export function idBlocks(name: string, blockSize: number): IdBlocks {
  let allocator = allocators.get(name);
  if (!allocator) {
    allocator = new IdBlocks(name, blockSize);
    allocators.set(name, allocator);
  }
  return allocator;
}

/** Drops the blocks every allocator holds: a process that stops a local store and starts another (a bench, a test) takes ids from the new store's counters. */
export function forgetIdBlocks(): void {
  for (const allocator of allocators.values()) allocator.forget();
}
