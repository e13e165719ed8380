import { describe, expect, it } from 'vitest';
import { invalidQuery, outOfReach } from '../../../shared/failures';
import { asHttpError, challengedWith, forbidden, HttpError, httpErrorOf, unauthorized } from '../../../shared/http/errors';

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

describe('a domain failure as the routes answer it', () => {
  it('is a 400 for a query that cannot be answered (naming the part at fault), a 403 for one out of reach', () => {
    const invalid = httpErrorOf(invalidQuery('A period of $stats spans at most twenty years.', 'period'));
    expect({ status: invalid.status, message: invalid.message, issue: invalid.issues[0] }).toEqual({
      status: 400,
      message: 'A period of $stats spans at most twenty years.',
      issue: { severity: 'error', code: 'invalid', diagnostics: 'A period of $stats spans at most twenty years.', expression: ['period'] },
    });
    const refused = httpErrorOf(outOfReach("The token's scopes do not cover Observation."));
    expect([refused.status, refused.issues[0]!.code, refused.issues[0]!.expression]).toEqual([403, 'forbidden', undefined]);
  });

  it('leaves anything else as it is', () => {
    const error = new Error('boom');
    expect(asHttpError(error)).toBe(error);
    expect(asHttpError(invalidQuery('x'))).toBeInstanceOf(HttpError);
  });
});
