import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeHtml, formTargetOf } from '../../../shared/oauth/pages';

describe('pages', () => {
  it('escapes every character HTML could read as markup', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(escapeHtml(text)).not.toMatch(/[<>"']/);
      }),
    );
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;');
  });

  it('allows form posts to the redirect URI origin, or its scheme for an app', () => {
    expect(formTargetOf('https://app.example:8443/cb?x=1')).toBe('https://app.example:8443');
    expect(formTargetOf('com.example.app:/cb')).toBe('com.example.app:');
    expect(formTargetOf('not a uri')).toBeUndefined();
  });
});
