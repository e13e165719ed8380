/**
 * ECDSA signatures come in two encodings: DER (an ASN.1 SEQUENCE of two INTEGERs; what KMS returns)
 * and JOSE (r and s as fixed-width big-endian numbers, concatenated; what a JWS carries, RFC 7518
 * §3.4). This converts the first into the second.
 */

function readLength(der: Uint8Array, at: number): { length: number; next: number } {
  const first = der[at];
  if (first === undefined) throw new Error('truncated DER signature');
  if (first < 0x80) return { length: first, next: at + 1 };
  const octets = first & 0x7f;
  if (octets === 0 || octets > 2) throw new Error('unsupported DER length');
  let length = 0;
  for (let i = 1; i <= octets; i += 1) length = (length << 8) | (der[at + i] ?? 0);
  return { length, next: at + 1 + octets };
}

function readInteger(der: Uint8Array, at: number, size: number): { value: Uint8Array; next: number } {
  if (der[at] !== 0x02) throw new Error('expected a DER INTEGER');
  const { length, next } = readLength(der, at + 1);
  let bytes = der.subarray(next, next + length);
  if (bytes.length !== length) throw new Error('truncated DER INTEGER');
  // DER adds a leading zero to keep a number with its top bit set positive.
  while (bytes.length > size && bytes[0] === 0) bytes = bytes.subarray(1);
  if (bytes.length > size) throw new Error('DER INTEGER longer than the curve size');
  const value = new Uint8Array(size);
  value.set(bytes, size - bytes.length);
  return { value, next: next + length };
}

/** DER ECDSA signature -> JOSE `r || s`, each `size` bytes (32 for P-256). */
export function derToJose(der: Uint8Array, size = 32): Uint8Array {
  if (der[0] !== 0x30) throw new Error('expected a DER SEQUENCE');
  const { length, next } = readLength(der, 1);
  if (next + length !== der.length) throw new Error('DER SEQUENCE length mismatch');
  const r = readInteger(der, next, size);
  const s = readInteger(der, r.next, size);
  if (s.next !== der.length) throw new Error('trailing bytes after DER signature');
  const out = new Uint8Array(size * 2);
  out.set(r.value, 0);
  out.set(s.value, size);
  return out;
}
