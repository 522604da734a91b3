import {
  SearchMetaSchema,
  SearchRequestSchema,
  SearchResultSchema,
  ToolInfoSchema,
  type SearchRequest,
  type SearchResponse,
  type ToolInfo,
} from '@catalog-search/core';
import { Type, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { InvalidRequestError } from './errors.js';

// `Value.Check` interprets the schema (no `new Function`), so it also runs under a strict
// Content-Security-Policy in a browser or an Electron renderer.

/**
 * Tool objects that passed validation, with the field values they had then. Routers send the same
 * tool objects on every search; re-checking 3,000 of them costs more than a warm local ranking. A
 * tool is re-checked when any top-level field was replaced; like core's rank cache, changes made
 * in place inside `inputSchema`, `annotations` or `tags` are not seen (pass new objects for those).
 */
const validTools = new WeakMap<object, readonly unknown[]>();
const FIELDS = ['toolKey', 'toolName', 'serverName', 'description', 'title', 'inputSchema', 'annotations', 'tags'] as const;

/** Compared field by field, without building anything: this runs for every tool of every search. */
function knownValid(tool: object): boolean {
  const known = validTools.get(tool);
  if (known === undefined) return false;
  for (let i = 0; i < FIELDS.length; i += 1) {
    if (known[i] !== (tool as Record<string, unknown>)[FIELDS[i]!]) return false;
  }
  return true;
}

/** Throws InvalidRequestError naming the first bad field; the same schema the service validates with. */
export function assertValidRequest(request: unknown): asserts request is SearchRequest {
  const tools = (request as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return assertMatches(SearchRequestSchema, request, '');
  // The request without its tools, then each tool not already known to be valid, in one pass that
  // also checks that toolKey is unique within the list (by contract; the service answers 400 otherwise).
  assertMatches(SearchRequestSchema, { ...(request as object), tools: [] }, '');
  const seen = new Map<string, number>();
  for (let index = 0; index < tools.length; index += 1) {
    const tool: unknown = tools[index];
    if (typeof tool !== 'object' || tool === null || !knownValid(tool)) {
      assertMatches(ToolInfoSchema, tool, `/tools/${index}`);
      validTools.set(tool as object, FIELDS.map((field) => (tool as Record<string, unknown>)[field]));
    }
    const key = (tool as ToolInfo).toolKey;
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      throw new InvalidRequestError(`/tools/${index}/toolKey`, `duplicates /tools/${earlier}/toolKey (${JSON.stringify(key)})`);
    }
    seen.set(key, index);
  }
}

function assertMatches(schema: TSchema, value: unknown, prefix: string): void {
  if (Value.Check(schema, value)) return;
  const first = Value.Errors(schema, value).First();
  throw new InvalidRequestError(`${prefix}${first?.path ?? ''}`, first?.message ?? `does not match ${schema.$id ?? 'the schema'}`);
}

/**
 * The service's response schema read as a tolerant reader: the same fields and bounds as core's
 * SearchResponseSchema, but unknown fields are allowed everywhere, so a newer service that adds a
 * field to results does not push every deployed client into fallback.
 */
const TolerantSearchResponseSchema = Type.Object(
  {
    results: Type.Array(Type.Object(SearchResultSchema.properties, { additionalProperties: true })),
    meta: SearchMetaSchema,
  },
  { additionalProperties: true },
);

/** Why a parsed body is not a usable answer to `request`, or undefined when it is. */
export function responseProblem(body: unknown, request: SearchRequest): string | undefined {
  if (!Value.Check(TolerantSearchResponseSchema, body)) {
    const first = Value.Errors(TolerantSearchResponseSchema, body).First();
    return `response does not match SearchResponse: ${first?.path || '(root)'} ${first?.message ?? ''}`.trim();
  }
  const response = body as SearchResponse;
  // Every result must be one of the tools we sent: anything else is not an answer to this request.
  const sentKeys = new Set(request.tools.map((tool) => tool.toolKey));
  const stranger = response.results.find((result) => !sentKeys.has(result.toolKey));
  if (stranger) return `response names a tool that was not sent: ${JSON.stringify(stranger.toolKey)}`;
  return undefined;
}
