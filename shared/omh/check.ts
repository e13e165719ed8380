/**
 * The one call the upload makes per mobile-health Observation: decode the attachment, validate
 * the header and the body against the code's schema, check that the header names that schema,
 * and lift the effective time. Either everything holds, or the entry fails with one status and
 * every issue found.
 */
import { issue, type OutcomeIssue } from '../fhir/outcome';
import { effectiveTimeProblem, liftEffectiveTime, type EffectiveTime } from './effective-time';
import { DATA_EXPRESSION, decodePayload, payloadExpression } from './payload';
import { HEADER, type OmhHeader } from './schemas/header';
import { schemaForCode, type PayloadSchema } from './schemas/index';
import { isObject, type JsonObject } from '../json';
import type { PayloadIssue } from './schemas/validate';

export interface OmhPayload {
  header: OmhHeader;
  body: JsonObject;
}

export type PayloadCheck =
  | {
      ok: true;
      schema: PayloadSchema;
      payload: OmhPayload;
      /** `header.uuid` in lower case: the reading's identity for duplicate detection. */
      uuid: string;
      /** Undefined when the body has no time frame (the Observation gets no `effective[x]`). */
      effective: EffectiveTime | undefined;
    }
  | { ok: false; status: 400 | 422; issues: OutcomeIssue[] };

/** At most this many payload issues are listed; a payload with thousands of bad items gets a summary line. */
export const MAX_LISTED_ISSUES = 50;

/** Payload issues as OperationOutcome issues locating the member inside the attachment. */
export function payloadOutcomeIssues(found: readonly PayloadIssue[]): OutcomeIssue[] {
  const listed = found
    .slice(0, MAX_LISTED_ISSUES)
    .map((i) => issue('error', i.code, `${i.path}: ${i.message}`, payloadExpression(i.path)));
  const more = found.length - listed.length;
  if (more > 0) listed.push(issue('error', 'too-costly', `${more} further issues in the payload are not listed`, DATA_EXPRESSION));
  return listed;
}

/**
 * The header must name the schema the code selects, member by member. (A schema_id that is not
 * three strings is already reported by the header schema.)
 */
function schemaIdIssues(header: JsonObject, schema: PayloadSchema): PayloadIssue[] {
  const id = header.schema_id;
  if (!isObject(id) || ![id.namespace, id.name, id.version].every((m) => typeof m === 'string')) return [];
  const matches = id.namespace === schema.namespace && id.name === schema.name && id.version === schema.version;
  if (matches) return [];
  const named = `${id.namespace}:${id.name}:${id.version}`;
  return [{ path: 'header.schema_id', code: 'value', message: `names ${named}, but the Observation is coded ${schema.code}` }];
}

/** Validates the payload in `valueAttachment` for an Observation coded `code` (`omh:heart-rate:2.0`). */
export function checkPayload(code: string, valueAttachment: unknown): PayloadCheck {
  const schema = schemaForCode(code);
  if (!schema) {
    const message = `No mobile-health schema is known for the code ${code}`;
    return { ok: false, status: 400, issues: [issue('error', 'code-invalid', message, 'Observation.code.coding[0].code')] };
  }
  const decoded = decodePayload(valueAttachment);
  if (!decoded.ok) {
    const { status, code: issueCode, message, expression } = decoded.error;
    return { ok: false, status, issues: [issue('error', issueCode, message, expression)] };
  }

  const { header, body } = decoded.payload;
  const found: PayloadIssue[] = [];
  HEADER(header, 'header', found);
  found.push(...schemaIdIssues(header, schema));
  schema.body(body, 'body', found);

  const effective = found.length === 0 ? liftEffectiveTime(body) : undefined;
  const problem = effective && effectiveTimeProblem(effective);
  if (problem) found.push({ path: 'body.effective_time_frame', code: 'value', message: problem });
  if (found.length > 0) return { ok: false, status: 422, issues: payloadOutcomeIssues(found) };

  const typedHeader = header as OmhHeader;
  return { ok: true, schema, payload: { header: typedHeader, body }, uuid: typedHeader.uuid.toLowerCase(), effective };
}
