/**
 * What an assistant's tool is (a name, a description written for a model, zod input and output
 * schemas, the FHIR types whose reads it makes) and how its answers and refusals look. A tool
 * returns its answer as structured content (checked against its output schema by the SDK) with a
 * short text rendering; every failure is a tool error result, never a protocol failure, and only
 * refusals meant for the caller carry their own words: anything unexpected is one fixed sentence
 * (its details go to `onError`, for the endpoint's log).
 */
import type * as z from 'zod';
import type { Caller } from '../auth/caller';
import type { Id } from '../directory/model';
import { isDomainFailure } from '../failures';
import { isHttpError, STORE_BUSY } from '../http/errors';

/** What a tool runs with: who asks, and where to tell whose data it read (the audit trail). */
export interface ToolContext {
  caller: Caller;
  now: number;
  touched(patientIds: readonly Id[]): void;
}

export interface ToolAnswer<T> {
  structured: T;
  /** A few lines for a model or a person; bounded by `MAX_TEXT_CHARS` when sent. */
  text: string;
}

export interface ToolDefinition<I extends z.ZodRawShape = z.ZodRawShape, O extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  /** FHIR resource types this tool reads: a backend service's token must cover each (`system/<Type>.rs`). */
  reads: readonly string[];
  run(args: z.infer<z.ZodObject<I>>, context: ToolContext): Promise<ToolAnswer<z.infer<z.ZodObject<O>>>>;
}

/** Keeps the types of one definition (inference needs a function). */
export const defineTool = <I extends z.ZodRawShape, O extends z.ZodRawShape>(definition: ToolDefinition<I, O>): ToolDefinition<I, O> => definition;

/** A refusal the caller is meant to read: an unknown id, an argument that names nothing, a cursor of another question. */
export class ToolRefusal extends Error {
  override name = 'ToolRefusal';
}

/** The longest text rendering sent: the structured content carries the full answer. */
export const MAX_TEXT_CHARS = 4000;

const SHORTENED = '\n… (shortened; the structured content is complete)';

export function boundedText(text: string): string {
  return text.length <= MAX_TEXT_CHARS ? text : `${text.slice(0, MAX_TEXT_CHARS - SHORTENED.length)}${SHORTENED}`;
}

const UNEXPECTED = 'The tool failed unexpectedly. Try again later; if it keeps failing, the service operators have the details.';

/**
 * The words a failure gives the caller: THE mapping of a failure to a tool error result. Refusals,
 * the domain's failures (shared/failures.ts: a query that cannot be answered, one out of reach) and
 * the client errors (4xx) of the parsers the FHIR API shares say what to change; their texts are
 * written for whoever asked. A busy store says so. Everything else is one sentence that tells
 * nothing of the service's insides.
 */
export function refusalText(error: unknown): { text: string; unexpected: boolean } {
  if (error instanceof ToolRefusal || isDomainFailure(error)) return { text: error.message, unexpected: false };
  if (isHttpError(error) && error.status >= 400 && error.status < 500) return { text: error.message, unexpected: false };
  if (isHttpError(error) && error.status === 503) return { text: STORE_BUSY, unexpected: false };
  return { text: UNEXPECTED, unexpected: true };
}
