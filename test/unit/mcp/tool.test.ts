/** What a tool's answer and refusal carry: a bounded text, and only what is the caller's to fix. */
import { describe, expect, it } from 'vitest';
import { invalidQuery, outOfReach } from '../../../shared/failures';
import { badRequest } from '../../../shared/http/errors';
import { boundedText, MAX_TEXT_CHARS, refusalText, ToolRefusal } from '../../../shared/mcp/tool';

describe('answers and refusals', () => {
  it('bound the text, and tell the caller only what is theirs to fix', () => {
    expect(boundedText('x'.repeat(MAX_TEXT_CHARS * 2)).length).toBeLessThanOrEqual(MAX_TEXT_CHARS);
    expect(refusalText(new ToolRefusal('No patient 3 is visible to you.'))).toEqual({ text: 'No patient 3 is visible to you.', unexpected: false });
    expect(refusalText(badRequest('Bad date.')).text).toBe('Bad date.');
    // The domain's failures are the caller's to fix, in their own words, whichever edge they came through.
    expect(refusalText(invalidQuery('This cursor belongs to another query.', 'cursor'))).toEqual({ text: 'This cursor belongs to another query.', unexpected: false });
    expect(refusalText(outOfReach("The token's scopes do not cover Observation."))).toEqual({ text: "The token's scopes do not cover Observation.", unexpected: false });
    const hidden = refusalText(new Error('ECONNREFUSED 10.0.0.1:8000'));
    expect(hidden.unexpected).toBe(true);
    expect(hidden.text).not.toMatch(/ECONNREFUSED/);
  });
});
