/** The tools' cursors: bound to their tool and arguments, refused otherwise. */
import { describe, expect, it } from 'vitest';
import { countPosition, encodeToolCursor, textPosition, toolCursorPosition } from '../../../shared/mcp/cursor';
import { ToolRefusal } from '../../../shared/mcp/tool';

describe('tool cursors', () => {
  const args = { patientId: 3, readingType: 'heart-rate', pageSize: 5 };

  it('come back as their position with the same arguments, whatever the page size', () => {
    const cursor = encodeToolCursor('get_readings', args, 'abc');
    expect(toolCursorPosition('get_readings', { ...args, pageSize: 50, cursor }, cursor)).toBe('abc');
    expect(countPosition(toolCursorPosition('list_studies', {}, encodeToolCursor('list_studies', {}, 2)), 1)).toBe(2);
    expect(toolCursorPosition('list_studies', {}, undefined)).toBeUndefined();
  });

  it('are refused with other arguments, another tool, or text this service did not write', () => {
    const cursor = encodeToolCursor('get_readings', args, 'abc');
    expect(() => toolCursorPosition('get_readings', { ...args, patientId: 4 }, cursor)).toThrow(/another question/);
    expect(() => toolCursorPosition('search_readings_by_value', args, cursor)).toThrow(/another question/);
    for (const text of ['x', 'bnVsbA', Buffer.from('[1]').toString('base64url'), `${cursor}=`]) expect(() => toolCursorPosition('get_readings', args, text)).toThrow(ToolRefusal);
    const negative = encodeToolCursor('list_studies', {}, -1);
    expect(() => toolCursorPosition('list_studies', {}, negative)).toThrow(/not valid/);
    expect(() => countPosition('abc', 1)).toThrow(/not valid/);
    expect(() => textPosition(3)).toThrow(/not valid/);
  });
});
