import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** The front door stays short: design notes, tables and figures belong in docs/, linked from it. */
const MAX_README_LINES = 300;

describe('the README', () => {
  it(`stays within ${MAX_README_LINES} lines`, () => {
    const lines = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    expect(lines.length).toBeLessThanOrEqual(MAX_README_LINES);
  });
});
