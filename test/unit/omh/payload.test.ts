import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base64Problem, decodeBase64 } from '../../../shared/omh/base64';
import { decodePayload, type DecodedPayload } from '../../../shared/omh/payload';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const attachment = (data: unknown, contentType = 'application/json') => ({ contentType, data });
const failure = (decoded: DecodedPayload) => {
  if (decoded.ok) throw new Error('expected a failure');
  return decoded.error;
};

describe('strict Base64', () => {
  it.each(['', 'QQ==', 'QUI=', 'QUJD', 'YWJjZA==', '+/+/'])('accepts canonical %j', (text) => {
    expect(base64Problem(text)).toBeUndefined();
  });

  it.each([
    ['QUJD\n', /whitespace/],
    ['QU JD', /whitespace/],
    [' QUJD', /whitespace/],
    ['QUJD\r\nQUJD', /whitespace/],
    ['-_-_', /URL-safe/],
    ['QUJ*', /not a Base64 character/],
    ['QUJDé===', /not a Base64 character/],
    ['QQ', /padded/],
    ['QUI', /padded/],
    ['QQ=A', /canonical/],
    ['Q===', /canonical/],
    ['QQ==QQ==', /canonical/],
    ['QR==', /canonical/],
    ['QUJ=', /canonical/],
    ['====', /canonical/],
  ])('rejects %j', (text, reason) => {
    expect(base64Problem(text)).toMatch(reason);
    expect(decodeBase64(text)).toBe(base64Problem(text));
  });

  it('decodes exactly what Node encodes, byte for byte', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(decodeBase64(Buffer.from(bytes).toString('base64'))).toEqual(Buffer.from(bytes));
      }),
    );
  });

  it('accepts a text exactly when it finds no problem with it', () => {
    const chars = fc.constantFrom(...'AQgwBz09+/=-_ \n*'.split(''));
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        const problem = base64Problem(text);
        const decoded = decodeBase64(text);
        expect(typeof decoded === 'string' ? decoded : undefined).toBe(problem);
        if (problem === undefined) expect(Buffer.from(decoded as Uint8Array).toString('base64')).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('decodePayload', () => {
  const good = JSON.stringify({ header: { uuid: 'x' }, body: { note: 'Zoë measured 37 °C' } });

  it('decodes Base64 of UTF-8 JSON, non-ASCII text included', () => {
    const decoded = decodePayload(attachment(b64(good)));
    expect(decoded).toEqual({ ok: true, payload: { header: { uuid: 'x' }, body: { note: 'Zoë measured 37 °C' } } });
  });

  it('accepts a JSON content type with parameters in any case', () => {
    expect(decodePayload(attachment(b64(good), 'Application/JSON; charset=UTF-8')).ok).toBe(true);
    expect(failure(decodePayload(attachment(b64(good), 'application/json; charset=latin1'))).status).toBe(400);
  });

  it.each([
    [undefined, 'Observation.valueAttachment', /is required/],
    ['text', 'Observation.valueAttachment', /Attachment object/],
    [{ data: b64(good) }, 'Observation.valueAttachment.contentType', /application\/json/],
    [attachment(b64(good), 'text/plain'), 'Observation.valueAttachment.contentType', /application\/json/],
    [attachment(undefined), 'Observation.valueAttachment.data', /data is required/],
    [attachment(''), 'Observation.valueAttachment.data', /non-empty/],
    [attachment(42), 'Observation.valueAttachment.data', /Base64 string/],
    [attachment('not base64!'), 'Observation.valueAttachment.data', /Base64/],
    [attachment(`${b64(good)}\n`), 'Observation.valueAttachment.data', /whitespace/],
    [attachment('eyJ2IjoiPz4_In0='), 'Observation.valueAttachment.data', /URL-safe/],
    [attachment(b64('not json')), 'Observation.valueAttachment.data', /does not decode to JSON/],
    [attachment(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]).toString('base64')), 'Observation.valueAttachment.data', /UTF-8/],
    [attachment(Buffer.from('{"a":"\xe9"}', 'latin1').toString('base64')), 'Observation.valueAttachment.data', /UTF-8/],
  ])('answers 400 for %j', (valueAttachment, expression, message) => {
    const error = failure(decodePayload(valueAttachment));
    expect(error.status).toBe(400);
    expect(error.expression).toBe(expression);
    expect(error.message).toMatch(message);
  });

  it.each([
    ['[1, 2]', 'Observation.valueAttachment.data', /JSON object/],
    ['null', 'Observation.valueAttachment.data', /JSON object/],
    ['{"body": {}}', 'Observation.valueAttachment.data.header', /header: is required/],
    ['{"header": {}}', 'Observation.valueAttachment.data.body', /body: is required/],
    ['{"header": [], "body": {}}', 'Observation.valueAttachment.data.header', /must be an object/],
    ['{"header": {}, "body": "x"}', 'Observation.valueAttachment.data.body', /must be an object/],
  ])('answers 422 for the JSON %s, which is not a payload', (json, expression, message) => {
    const error = failure(decodePayload(attachment(b64(json))));
    expect(error.status).toBe(422);
    expect(error.expression).toBe(expression);
    expect(error.message).toMatch(message);
  });
});
