/**
 * The assistants' server (Model Context Protocol): the read-only tools and the schema resources,
 * registered on the official SDK's `McpServer` for one caller. Stateless: a server is made per
 * request (or per session) for the caller its token names, so every tool runs as that caller and
 * sees exactly what the FHIR API shows them; an HTTP endpoint only has to connect a transport
 * (docs/mcp.md). Nothing here knows of HTTP or tokens.
 */
import { McpServer, ResourceNotFoundError, ResourceTemplate, type CallToolResult } from '@modelcontextprotocol/server';
import * as z from 'zod';
import type { Caller } from '../auth/caller';
import type { Id } from '../directory/model';
import { assertTypesCovered } from './access';
import { allSchemas, describeSchema, SCHEMA_URI_PREFIX, schemaOfCode, schemaUri } from './reading-types';
import { boundedText, refusalText, type ToolContext, type ToolDefinition } from './tool';
import { clinicalRecordTool } from './tools/clinical';
import { getPatientTool, getStudyTool, listStudiesTool, listStudyPatientsTool } from './tools/directory';
import { countReadingsTool, getReadingsTool, latestReadingsTool, patientReadingDatesTool, searchReadingsByValueTool } from './tools/readings';
import { glucoseSummaryTool } from './tools/glucose';
import { getOmhSchemaTool } from './tools/schemas';
import { readingStatisticsTool, summarizePatientReadingsTool } from './tools/summaries';

export const MCP_SERVER_INFO = { name: 'clinical-data-exchange', version: '0.1.0' };

/** Elements (values, keys, items) in one tool's arguments, at most: every tool takes a handful. */
export const MAX_ARGUMENT_ELEMENTS = 100;

const INSTRUCTIONS = [
  'Read-only access to mobile-health readings (Open mHealth: heart rate, blood pressure, steps, sleep, ...) and clinical records, as the signed-in user may see them.',
  'Start with list_studies and list_study_patients (practitioners) or get_patient (a patient: themselves), then summarize_patient_readings.',
  'Lists are bounded: when an answer has nextCursor, call the same tool with the same arguments and that cursor to continue.',
  'Times are UTC. An id the user may not see answers like an unknown one.',
].join(' ');

/** Every tool, in the order `tools/list` shows them. */
export const TOOLS: readonly ToolDefinition[] = [
  listStudiesTool,
  getStudyTool,
  listStudyPatientsTool,
  getPatientTool,
  patientReadingDatesTool,
  countReadingsTool,
  summarizePatientReadingsTool,
  getReadingsTool,
  searchReadingsByValueTool,
  readingStatisticsTool,
  glucoseSummaryTool,
  latestReadingsTool,
  clinicalRecordTool,
  getOmhSchemaTool,
] as unknown as readonly ToolDefinition[];

export interface McpServerOptions {
  /** The patients a tool read data of, for the audit trail. */
  onTouched?: (patientIds: readonly Id[]) => void;
  /** A failure the caller was told only that it happened: for the log. */
  onError?: (tool: string, error: unknown) => void;
  /** The clock (tests). */
  now?: () => number;
}

/** A tool's answer, or its refusal as a tool error result: a tool never fails the protocol exchange. */
async function answer(tool: ToolDefinition, args: Record<string, unknown>, caller: Caller, options: McpServerOptions): Promise<CallToolResult> {
  const touched = new Set<Id>();
  const context: ToolContext = { caller, now: options.now?.() ?? Date.now(), touched: (ids) => ids.forEach((id) => touched.add(id)) };
  try {
    assertTypesCovered(caller, tool.reads);
    const { structured, text } = await tool.run(args as z.infer<z.ZodObject<z.ZodRawShape>>, context);
    return { content: [{ type: 'text', text: boundedText(text) }], structuredContent: structured as Record<string, unknown> };
  } catch (error) {
    const refusal = refusalText(error);
    if (refusal.unexpected) options.onError?.(tool.name, error);
    return { content: [{ type: 'text', text: refusal.text }], isError: true };
  } finally {
    if (touched.size > 0) options.onTouched?.([...touched]);
  }
}

/**
 * The tools and resources never change while a server lives (one request): no list-changed
 * notifications, so a 2026-07-28 `subscriptions/listen` is acknowledged with nothing to follow and
 * closed at once, and no stream is ever held open.
 */
const FIXED_LISTS = { tools: { listChanged: false }, resources: { listChanged: false } };

/**
 * The schema with its JSON Schema forms converted once: the SDK converts a tool's output schema on
 * every call (to shape the result) and every server is new, so without this each call would
 * convert it again. The forms are frozen: every server shares them.
 */
function convertedOnce<S extends z.ZodType>(schema: S): S {
  const standard = schema['~standard'];
  const converted = new Map<string, Record<string, unknown>>();
  const once = (io: 'input' | 'output') => (options: Parameters<typeof standard.jsonSchema.input>[0]) => {
    // Only the target varies (the SDK asks for draft 2020-12): other options convert every time.
    if (options.libraryOptions !== undefined) return standard.jsonSchema[io](options);
    const key = `${io} ${options.target}`;
    if (!converted.has(key)) converted.set(key, deepFreeze(standard.jsonSchema[io](options)));
    return converted.get(key)!;
  };
  return Object.create(schema, { '~standard': { value: { ...standard, jsonSchema: { input: once('input'), output: once('output') } } } }) as S;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/**
 * Each tool's registration, made once: its zod objects, their JSON Schema forms (a server is made
 * per request, and making these cost more than the rest of it).
 */
const REGISTRATIONS = TOOLS.map((tool) => ({
  tool,
  config: {
    title: tool.title,
    description: tool.description,
    inputSchema: convertedOnce(z.object(tool.input)),
    outputSchema: convertedOnce(z.object(tool.output)),
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
}));

/** A server holding every tool and the schema resources, each tool run as `caller`. */
export function createMcpServer(caller: Caller, options: McpServerOptions = {}): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, { instructions: INSTRUCTIONS, maxToolInputElements: MAX_ARGUMENT_ELEMENTS, capabilities: FIXED_LISTS });
  for (const { tool, config } of REGISTRATIONS) server.registerTool(tool.name, config, (args: Record<string, unknown>) => answer(tool, args, caller, options));
  registerSchemaResources(server);
  return server;
}

/** The 20 schemas as resources `omh://schema/<code>` (the full code: `omh://schema/omh:heart-rate:2.0`), listed and read as JSON. */
function registerSchemaResources(server: McpServer): void {
  const list = () => ({
    resources: allSchemas().map((s) => ({ uri: schemaUri(s), name: s.code, title: s.display, description: `The ${s.display} schema (${s.code}): members, values, units, standard codes.`, mimeType: 'application/json' })),
  });
  server.registerResource(
    'omh-schema',
    new ResourceTemplate(`${SCHEMA_URI_PREFIX}{code}`, { list }),
    { title: 'Open mHealth schema', description: 'What readings of a type hold: the description get_omh_schema gives, by the full code.', mimeType: 'application/json' },
    (uri) => {
      // The URI's own text, decoded once: a code holds no character that needs encoding, but a client may encode the colons.
      const code = safeDecode(uri.href.slice(SCHEMA_URI_PREFIX.length));
      const schema = code === undefined ? undefined : schemaOfCode(code);
      // The SDK answers it as the revisions ask: a JSON-RPC error -32602.
      if (!schema) throw new ResourceNotFoundError(uri.href, `No schema at this URI: resources/list gives the ${allSchemas().length} schema URIs.`);
      return { contents: [{ uri: schemaUri(schema), mimeType: 'application/json', text: JSON.stringify(describeSchema(schema), null, 2) }] };
    },
  );
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
