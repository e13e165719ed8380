import { describe, expect, it } from 'vitest';
import { challengedWith, forbidden, unauthorized } from '../../../shared/http/errors';

const METADATA = { resource_metadata: 'https://x.example/.well-known/oauth-protected-resource/mcp', scope: 'openid user/*.rs' };

describe('a route challenge on a 401', () => {
  it('adds its parameters after the realm, before the error, to a refused token', () => {
    const e = challengedWith(unauthorized('The access token is invalid, "really".'), METADATA);
    expect(e.headers['WWW-Authenticate']).toBe(
      `Bearer realm="cdx", resource_metadata="${METADATA.resource_metadata}", scope="openid user/*.rs", error="invalid_token", error_description="The access token is invalid, 'really'."`,
    );
  });

  it('adds them to a challenge without an error code (no credentials at all)', () => {
    const e = challengedWith(unauthorized('none', { headers: { 'WWW-Authenticate': 'Bearer realm="cdx"' } }), METADATA);
    expect(e.headers['WWW-Authenticate']).toBe(`Bearer realm="cdx", resource_metadata="${METADATA.resource_metadata}", scope="openid user/*.rs"`);
  });

  it('leaves any other refusal alone', () => {
    expect(challengedWith(forbidden(), METADATA).headers['WWW-Authenticate']).toBeUndefined();
  });
});
