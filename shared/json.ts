/** Parsed JSON: the one test that a value is a JSON object (not null, not a list). */

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The JSON object a Base64url text encodes (a cursor this service wrote), or undefined: only text
 * that is exactly what encoding its bytes gives back (Base64 decoding alone skips stray characters
 * and spare bits), that parses, and whose value is an object (JSON `null`, numbers and lists parse too).
 */
export function objectOfBase64Url(text: string): JsonObject | undefined {
  const bytes = Buffer.from(text, 'base64url');
  if (bytes.toString('base64url') !== text) return undefined;
  try {
    const json: unknown = JSON.parse(bytes.toString('utf8'));
    return isObject(json) ? json : undefined;
  } catch {
    return undefined;
  }
}
