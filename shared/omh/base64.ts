/**
 * Strict Base64 (RFC 4648 §4: the standard alphabet, padded), the encoding of FHIR
 * `base64Binary`. Node's own decoder is lenient (it skips junk, accepts the URL-safe alphabet and
 * missing padding), so the text is checked first and one payload has exactly one accepted
 * encoding: no whitespace, no URL-safe characters, padding only at the end and padding bits zero.
 */

/** Whole quads, then optionally one padded quad whose unused low bits are zero. */
const CANONICAL = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?$/;
const NON_ALPHABET = /[^A-Za-z0-9+/=]/;

/** Why `text` is not canonical Base64, or undefined when it is. */
export function base64Problem(text: string): string | undefined {
  if (text.length % 4 === 0 && CANONICAL.test(text)) return undefined;
  const bad = NON_ALPHABET.exec(text)?.[0];
  if (bad === '-' || bad === '_') return 'must use the standard Base64 alphabet (+ and /), not the URL-safe one (- and _)';
  if (bad !== undefined && /\s/.test(bad)) return 'must be Base64 without whitespace or line breaks';
  if (bad !== undefined) return `contains ${JSON.stringify(bad)}, which is not a Base64 character`;
  if (text.length % 4 !== 0) return 'must be padded Base64 (its length is not a multiple of 4)';
  return 'is not canonical Base64 (misplaced padding or non-zero padding bits)';
}

/**
 * Decodes canonical Base64 to bytes, or returns why it is not canonical Base64. Node's encoder
 * writes exactly the canonical form, so a text that survives decode + encode unchanged is
 * canonical; that round trip is several times faster than the regular expression, which only
 * runs to explain a failure.
 */
export function decodeBase64(text: string): Uint8Array | string {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.toString('base64') === text) return bytes;
  return base64Problem(text) ?? bytes;
}
