/**
 * From an Observation's `valueAttachment` to the payload `{header, body}` it carries: content type
 * `application/json`, `data` canonical Base64, the bytes UTF-8 (any script: "°C" and "Zoë" are
 * fine), the text JSON, the document an object with object `header` and `body`. Each failure is a
 * value carrying the status the batch entry gets and where the problem is.
 */
import type { IssueCode } from '../fhir/outcome';
import { decodeBase64 } from './base64';
import { isObject, type JsonObject } from '../json';

/** Where the payload lives in the Observation; payload paths are appended to it. */
export const DATA_EXPRESSION = 'Observation.valueAttachment.data';

/** FHIRPath-ish location of a payload member: `Observation.valueAttachment.data.body.heart_rate`. */
export function payloadExpression(payloadPath: string): string {
  return `${DATA_EXPRESSION}.${payloadPath}`;
}

/** A decoded payload before its header and body are validated. */
export interface RawPayload {
  header: JsonObject;
  body: JsonObject;
}

export interface PayloadError {
  /** 400 when the attachment cannot be read as JSON; 422 when the JSON is not a payload. */
  status: 400 | 422;
  code: IssueCode;
  message: string;
  /** FHIRPath-ish location, e.g. `Observation.valueAttachment.data`. */
  expression: string;
}

export type DecodedPayload = { ok: true; payload: RawPayload } | { ok: false; error: PayloadError };

const utf8 = new TextDecoder('utf-8', { fatal: true });

const error = (status: 400 | 422, code: IssueCode, message: string, expression = DATA_EXPRESSION): DecodedPayload => ({
  ok: false,
  error: { status, code, message, expression },
});

/** True for `application/json`, in any case, with optional parameters; a charset must be UTF-8. */
function isJsonMediaType(contentType: string): boolean {
  const [type, ...params] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (type !== 'application/json') return false;
  return params.every((p) => !p.startsWith('charset=') || ['utf-8', 'utf8'].includes(p.replace(/^charset=\s*"?|"$/g, '')));
}

export function decodePayload(valueAttachment: unknown): DecodedPayload {
  const at = 'Observation.valueAttachment';
  if (valueAttachment === undefined || valueAttachment === null) {
    return error(400, 'required', 'Observation.valueAttachment is required', at);
  }
  if (!isObject(valueAttachment)) return error(400, 'structure', 'Observation.valueAttachment must be an Attachment object', at);
  const { contentType, data } = valueAttachment;
  if (typeof contentType !== 'string' || !isJsonMediaType(contentType)) {
    return error(400, 'value', 'Observation.valueAttachment.contentType must be application/json', `${at}.contentType`);
  }
  if (data === undefined || data === null) return error(400, 'required', 'Observation.valueAttachment.data is required');
  if (typeof data !== 'string' || data.length === 0) {
    return error(400, 'value', 'Observation.valueAttachment.data must be a non-empty Base64 string');
  }

  const bytes = decodeBase64(data);
  if (typeof bytes === 'string') return error(400, 'value', `Observation.valueAttachment.data ${bytes}`);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return error(400, 'value', 'Observation.valueAttachment.data does not decode to UTF-8 text');
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    // The parser's message quotes the text; an outcome (and any log of it) must not echo payload content.
    return error(400, 'value', 'Observation.valueAttachment.data does not decode to JSON text');
  }

  if (!isObject(document)) return error(422, 'structure', 'The payload must be a JSON object with header and body');
  for (const part of ['header', 'body'] as const) {
    if (!Object.hasOwn(document, part)) return error(422, 'required', `${part}: is required`, payloadExpression(part));
    if (!isObject(document[part])) return error(422, 'structure', `${part}: must be an object`, payloadExpression(part));
  }
  return { ok: true, payload: { header: document.header as JsonObject, body: document.body as JsonObject } };
}
