import { describe, expect, it } from 'vitest';
import { redirectWith } from '../../../shared/oauth/authorize';

describe('the redirect back to the client', () => {
  it('adds response parameters to the registered redirect URI without changing it', () => {
    expect(redirectWith('https://app.example/cb', { code: 'a b', state: undefined })).toBe('https://app.example/cb?code=a+b');
    expect(redirectWith('https://app.example/cb?x=1', { code: 'c' })).toBe('https://app.example/cb?x=1&code=c');
    expect(redirectWith('com.example.app:/cb', { error: 'access_denied' })).toBe('com.example.app:/cb?error=access_denied');
  });
});
