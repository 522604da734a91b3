// The router's `tool_discovery` meta-tool (seed 000): its MCP definition, and the handler that turns
// a `tools/call` of it into a search and the search into an MCP `CallToolResult`. The router lists
// this tool (and its `tool_execute`) instead of every tool of every server, and calls
// `handleToolDiscovery` with the `tools/list` results of its connected servers.
import {
  inspectNesting,
  MAX_NESTING_DEPTH,
  readToolList,
  round3,
  type McpServerTools,
  type SearchBoost,
  type SearchFilter,
  type SearchResult,
  type ToolInfo,
} from '@catalog-search/core';
import type { CatalogSearchClient, SearchOptions, SearchOutcome } from './client-contract.js';
import { APIUserAbortError, CatalogSearchError, InvalidRequestError } from './errors.js';

export type ToolDiscoveryDetail = 'minimal' | 'summary' | 'full';

/** The `arguments` of a `tools/call` of `tool_discovery`, as the agent sends them. */
export interface ToolDiscoveryArguments {
  query: string[];
  context?: string;
  maxResults?: number;
  detail?: ToolDiscoveryDetail;
}

export const TOOL_DISCOVERY_NAME = 'tool_discovery';
/** Results when the agent does not say: enough to choose from, few enough to read. */
export const DEFAULT_DISCOVERY_RESULTS = 10;
/** Characters of a description in `summary` detail (cut at a word): about 40 tokens. */
const SUMMARY_DESCRIPTION_CHARS = 240;
/** Arguments named in `summary` detail; the rest are counted. */
const SUMMARY_ARGUMENTS = 12;
/** Characters of an argument's name or enum value in `summary` detail. */
const SUMMARY_ARGUMENT_CHARS = 64;
/** Levels of `items` an argument's type names (`string[][]`). */
const MAX_TYPE_DEPTH = 4;

/** One result in `structuredContent.results`: the fields depend on `detail`. */
export interface ToolDiscoveryResult {
  toolKey: string;
  relevance: number;
  toolName?: string;
  serverName?: string;
  title?: string;
  description?: string;
  /** `summary`: the arguments in one line (`repo: string, title: string, body?: string`). */
  arguments?: string;
  explanation?: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** The MCP `CallToolResult` that `handleToolDiscovery` returns. */
export interface ToolDiscoveryCallResult {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: { results: ToolDiscoveryResult[] };
  isError?: boolean;
  /** For the router, not the model: the search's request id (quote it when reporting an outcome) and where it was answered. */
  _meta?: { requestId: string; source: SearchOutcome['source']; fallbackReason?: string };
  [key: string]: unknown;
}

const resultSchema = {
  type: 'object',
  properties: {
    toolKey: { type: 'string', description: 'Pass this to tool_execute.' },
    relevance: { type: 'number', minimum: 0, maximum: 1 },
    toolName: { type: 'string' },
    serverName: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string' },
    arguments: { type: 'string', description: 'The arguments in one line (summary detail).' },
    explanation: { type: 'string' },
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object' },
    annotations: { type: 'object' },
  },
  required: ['toolKey', 'relevance'],
} as const;

/**
 * The MCP tool definition to return from the router's `tools/list` (MCP 2025-06-18 `Tool`). The
 * description tells the agent when to call it (whenever it needs a capability it does not see) and
 * how (one plain-language query per step), since it is the only way to reach the servers' tools.
 */
export const TOOL_DISCOVERY_TOOL = {
  name: TOOL_DISCOVERY_NAME,
  title: 'Find tools',
  description:
    'Search the tools of every connected MCP server; they are not listed directly, so call this first whenever a ' +
    'task needs a capability you do not see (reading files, calling an API, sending a message, querying a database...). ' +
    'Describe what you want to do in plain words, one query per step of a multi-step task, and add the surrounding task ' +
    'as context. Returns the best-matching tools by relevance (0-1); call one with tool_execute, passing its toolKey ' +
    'and arguments that follow its inputSchema. detail: "minimal" (keys only), "summary" (default: description and ' +
    'arguments in one line) or "full" (full descriptions and JSON schemas: ask for it for the tools you will call). ' +
    'If nothing fits, search again with other words before giving up.',
  inputSchema: {
    type: 'object',
    properties: {
      query: {
        type: 'array',
        items: { type: 'string', minLength: 1 },
        minItems: 1,
        maxItems: 16,
        description: 'What you want to do, in plain words; one entry per step of a multi-step task.',
      },
      context: { type: 'string', description: 'The task around it (helps the ranking); optional.' },
      maxResults: {
        type: 'integer',
        minimum: 1,
        maximum: 100,
        description: `How many tools to return (default ${DEFAULT_DISCOVERY_RESULTS}).`,
      },
      detail: {
        type: 'string',
        enum: ['minimal', 'summary', 'full'],
        description: 'How much to say about each tool (default "summary"); "full" includes the inputSchema.',
      },
    },
    required: ['query'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: { results: { type: 'array', items: resultSchema } },
    required: ['results'],
  },
  annotations: {
    title: 'Find tools',
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
} as const;

export interface ToolDiscoveryOptions extends SearchOptions {
  /** Results when the agent gives no `maxResults`. Default 10. */
  defaultMaxResults?: number;
  /** Applied to every search (the router's policy: e.g. `{ excludeDestructive: true }`). */
  filter?: SearchFilter;
  boost?: SearchBoost;
  minRelevance?: number;
}

/**
 * Runs a `tools/call` of `tool_discovery`: checks the agent's arguments (a bad one is an `isError`
 * result naming it, so the model can correct itself), searches `tools` (a `ToolInfo` list, or the
 * `servers` from `toServers()`), and returns the CallTool result: `content` text sized by `detail`,
 * the same results in `structuredContent.results`, and the request id in `_meta`. The search falls
 * back locally as the client does; only the caller's abort rejects.
 */
export async function handleToolDiscovery(
  client: CatalogSearchClient,
  args: unknown,
  tools: readonly ToolInfo[] | readonly McpServerTools[],
  options: ToolDiscoveryOptions = {},
): Promise<ToolDiscoveryCallResult> {
  const { defaultMaxResults = DEFAULT_DISCOVERY_RESULTS, filter, boost, minRelevance, ...searchOptions } = options;
  let parsed: ToolDiscoveryArguments;
  try {
    parsed = readArguments(args);
  } catch (error) {
    if (error instanceof InvalidRequestError) return errorResult(error.message);
    throw error;
  }
  const detail = parsed.detail ?? 'summary';
  const grouped = isGrouped(tools);
  // No tool at all (no server, or servers that list none): nothing to search, and no other words would help.
  const listed = grouped
    ? (tools as McpServerTools[]).reduce((count, server) => count + server.tools.length, 0)
    : tools.length;
  if (listed === 0) return toCallResult([], detail, undefined, EMPTY_LIST_TEXT);

  const request = {
    query: parsed.query,
    maxResults: parsed.maxResults ?? defaultMaxResults,
    ...(parsed.context === undefined ? {} : { context: parsed.context }),
    ...(filter === undefined ? {} : { filter }),
    ...(boost === undefined ? {} : { boost }),
    ...(minRelevance === undefined ? {} : { minRelevance }),
  };
  let outcome: SearchOutcome;
  try {
    outcome = await client.search(
      grouped ? { ...request, servers: tools as McpServerTools[] } : { ...request, tools: tools as ToolInfo[] },
      searchOptions,
    );
  } catch (error) {
    if (error instanceof APIUserAbortError || !(error instanceof CatalogSearchError)) throw error;
    // `fallback: false`, or an argument the client refused (the query too long...): the agent can act on it.
    return errorResult(`Tool search failed: ${error.message}`);
  }
  const kept = keptByKey(tools, grouped);
  const results = outcome.results.map((result) => describe(result, kept.get(result.toolKey), detail));
  return toCallResult(results, detail, outcome);
}

function readArguments(args: unknown): ToolDiscoveryArguments {
  if (args === null || typeof args !== 'object' || Array.isArray(args))
    throw new InvalidRequestError('', 'arguments must be an object with a query');
  const { query, context, maxResults, detail } = args as Record<string, unknown>;
  // Models often send one string where a list is asked for: take it as a one-step query.
  const queries = typeof query === 'string' ? [query] : query;
  if (!Array.isArray(queries) || queries.length === 0)
    throw new InvalidRequestError('/query', 'must be a non-empty array of strings');
  if (queries.length > 16) throw new InvalidRequestError('/query', 'must have at most 16 entries');
  const cleaned = queries.map((entry, index) => {
    if (typeof entry !== 'string' || entry.trim() === '')
      throw new InvalidRequestError(`/query/${index}`, 'must be a non-empty string');
    return entry.trim();
  });
  const parsed: ToolDiscoveryArguments = { query: cleaned };
  if (context !== undefined && context !== null) {
    if (typeof context !== 'string') throw new InvalidRequestError('/context', 'must be a string');
    if (context.trim() !== '') parsed.context = context;
  }
  if (maxResults !== undefined && maxResults !== null) {
    const value = typeof maxResults === 'string' && /^\d+$/.test(maxResults.trim()) ? Number(maxResults) : maxResults;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 100) {
      throw new InvalidRequestError('/maxResults', 'must be an integer from 1 to 100');
    }
    parsed.maxResults = value;
  }
  if (detail !== undefined && detail !== null) {
    if (detail !== 'minimal' && detail !== 'summary' && detail !== 'full') {
      throw new InvalidRequestError('/detail', 'must be "minimal", "summary" or "full"');
    }
    parsed.detail = detail;
  }
  return parsed;
}

const isGrouped = (tools: readonly unknown[]): boolean =>
  tools.every((entry) => {
    const server = entry as { serverId?: unknown; tools?: unknown } | null;
    return (
      typeof server === 'object' &&
      server !== null &&
      typeof server.serverId === 'string' &&
      Array.isArray(server.tools)
    );
  });

/** A tool the search kept: as core's reader read it, and the router's object it was read from. */
interface Kept {
  read: ToolInfo;
  raw: Record<string, unknown>;
}

/**
 * The tools the search kept, by key: each tool read on its own with core's reader, the first usable
 * copy of a key kept, as the service and the local fallback keep it (a copy the reader skips, e.g.
 * one nested too deep, does not hide the next one). A result is then shown with its own tool's
 * data, and with schemas the reader bounded in depth.
 */
function keptByKey(tools: readonly ToolInfo[] | readonly McpServerTools[], grouped: boolean): Map<string, Kept> {
  const byKey = new Map<string, Kept>();
  const keep = (raw: unknown, reading: ReturnType<typeof readToolList>) => {
    const read = reading.ok ? reading.list.tools[0] : undefined;
    if (read !== undefined && !byKey.has(read.toolKey)) byKey.set(read.toolKey, { read, raw: raw as Kept['raw'] });
  };
  if (grouped) {
    for (const { serverId, serverName, tools: listed } of tools as readonly McpServerTools[]) {
      for (const raw of listed as unknown[])
        keep(raw, readToolList({ servers: [{ serverId, serverName, tools: [raw] }] }));
    }
  } else {
    for (const raw of tools as readonly unknown[]) keep(raw, readToolList({ tools: [raw] }));
  }
  return byKey;
}

function describe(result: SearchResult, kept: Kept | undefined, detail: ToolDiscoveryDetail): ToolDiscoveryResult {
  const described: ToolDiscoveryResult = { toolKey: result.toolKey, relevance: round3(result.relevance) };
  if (detail === 'minimal') return described;
  described.toolName = result.toolName;
  described.serverName = result.serverName;
  const tool = kept?.read;
  const title = tool?.title ?? stringField(record(tool?.annotations), 'title');
  // Titles are the server's text, shown in the model's text: one line, of bounded length.
  if (title !== undefined) described.title = shorten(title, SUMMARY_DESCRIPTION_CHARS);
  const inputSchema = tool?.inputSchema;
  if (detail === 'summary') {
    if (result.description !== undefined)
      described.description = shorten(result.description, SUMMARY_DESCRIPTION_CHARS);
    const signature = inputSchema === undefined ? undefined : argumentsLine(inputSchema);
    if (signature !== undefined) described.arguments = signature;
    return described;
  }
  if (result.description !== undefined) described.description = result.description;
  if (result.explanation !== undefined) described.explanation = result.explanation;
  if (inputSchema !== undefined) described.inputSchema = inputSchema;
  // Not read by the search: bounded here as the reader bounds inputSchema, so that the JSON of the answer can be made.
  const outputSchema = record(kept?.raw.outputSchema);
  if (outputSchema !== undefined && inspectNesting(outputSchema, MAX_NESTING_DEPTH) !== 'too_deep')
    described.outputSchema = outputSchema;
  const annotations = result.annotations ?? tool?.annotations;
  if (annotations !== undefined) described.annotations = annotations;
  return described;
}

/** `owner: string, repo: string, labels?: string[]` from a JSON Schema object: what an agent needs to pick a tool. */
function argumentsLine(schema: Record<string, unknown>): string | undefined {
  const properties = record(schema.properties);
  if (properties === undefined) return undefined;
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === 'string') : [],
  );
  const names = Object.keys(properties);
  if (names.length === 0) return 'none';
  const parts = names
    .slice(0, SUMMARY_ARGUMENTS)
    .map(
      (name) =>
        `${shorten(name, SUMMARY_ARGUMENT_CHARS)}${required.has(name) ? '' : '?'}: ${typeName(record(properties[name]), 0)}`,
    );
  if (names.length > SUMMARY_ARGUMENTS) parts.push(`… ${names.length - SUMMARY_ARGUMENTS} more`);
  // Names and enum values are the server's text: folded, so that none starts a line of the model's text.
  return oneLine(parts.join(', '));
}

/** `string`, `"a" | "b"`, `string[]`: arrays of arrays are named down to a few levels (`any` below). */
function typeName(schema: Record<string, unknown> | undefined, depth: number): string {
  if (schema === undefined || depth > MAX_TYPE_DEPTH) return 'any';
  if (Array.isArray(schema.enum))
    return (
      schema.enum
        .slice(0, 5)
        .map((value) => shorten(JSON.stringify(value) ?? 'null', SUMMARY_ARGUMENT_CHARS))
        .join(' | ') + (schema.enum.length > 5 ? ' | …' : '')
    );
  const type = Array.isArray(schema.type)
    ? schema.type.join(' | ')
    : typeof schema.type === 'string'
      ? schema.type
      : 'any';
  if (type === 'array') return `${typeName(record(schema.items), depth + 1)}[]`;
  return type;
}

/** What the model reads when the router has no tools to offer: searching again cannot find one. */
const EMPTY_LIST_TEXT =
  'No tools are available: the tool list is empty (no server is connected, or none lists a tool). Searching again will not find one.';

function toCallResult(
  results: ToolDiscoveryResult[],
  detail: ToolDiscoveryDetail,
  outcome: SearchOutcome | undefined,
  text = render(results, detail),
): ToolDiscoveryCallResult {
  const call: ToolDiscoveryCallResult = {
    content: [{ type: 'text', text }],
    structuredContent: { results },
  };
  if (outcome !== undefined) {
    call._meta = {
      requestId: outcome.meta.requestId,
      source: outcome.source,
      ...(outcome.fallbackReason === undefined ? {} : { fallbackReason: outcome.fallbackReason }),
    };
  }
  return call;
}

/** The text the model reads: one line per tool (minimal), a short block (summary), or the JSON of each (full). */
function render(results: ToolDiscoveryResult[], detail: ToolDiscoveryDetail): string {
  if (results.length === 0) return 'No matching tools. Try other words, or fewer constraints.';
  // JSON escapes \n and \r but leaves U+0085, U+2028 and U+2029, which some readers take as line breaks.
  if (detail === 'full')
    return JSON.stringify({ results }).replace(
      /[\u0085\u2028\u2029]/g,
      (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  const lines = results.map((result, index) => {
    // A key is the server's text too (its id and tool name): folded in the text, exact in structuredContent.
    const key = oneLine(result.toolKey);
    if (detail === 'minimal') return `${index + 1}. ${key} (${result.relevance})`;
    const head = `${index + 1}. ${key}${result.title === undefined ? '' : ` "${result.title}"`} (relevance ${result.relevance})`;
    const body = [
      result.description,
      result.arguments === undefined ? undefined : `arguments: ${result.arguments}`,
    ].filter((line) => line !== undefined);
    return [head, ...body.map((line) => `   ${line}`)].join('\n');
  });
  const hint =
    detail === 'minimal'
      ? 'Ask with detail "summary" or "full" for descriptions.'
      : 'Call one with tool_execute (toolKey, arguments); ask with detail "full" for its inputSchema.';
  return `${lines.join('\n')}\n${hint}`;
}

function errorResult(message: string): ToolDiscoveryCallResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** `text` on one line: runs of white space and control characters (line breaks of every kind) become one space. */
const oneLine = (text: string): string => text.replace(/[\s\p{Cc}]+/gu, ' ').trim();

/** The first `max` characters, cut at a word, with an ellipsis; on one line. */
function shorten(text: string, max: number): string {
  const folded = oneLine(text);
  if (folded.length <= max) return folded;
  const cut = folded.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s.,;:]+$/, '')}…`;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const record = (value: unknown): Record<string, unknown> | undefined => (isRecord(value) ? value : undefined);
const stringField = (value: Record<string, unknown> | undefined, name: string): string | undefined =>
  typeof value?.[name] === 'string' && value[name] !== '' ? (value[name] as string) : undefined;
