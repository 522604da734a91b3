import {
  findDuplicateToolKey,
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

/** Throws InvalidRequestError naming the first bad field; the same schema the service validates with. */
export function assertValidRequest(request: unknown): asserts request is SearchRequest {
  const tools = (request as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return assertMatches(SearchRequestSchema, request, '');
  // The request without its tools, then each tool, then that toolKey is unique within the list (by
  // contract; the service answers 400 otherwise).
  assertMatches(SearchRequestSchema, { ...(request as object), tools: [] }, '');
  for (let index = 0; index < tools.length; index += 1) {
    const tool: unknown = tools[index];
    if (!isPlainlyValidTool(tool)) assertMatches(ToolInfoSchema, tool, `/tools/${index}`);
  }
  const duplicate = findDuplicateToolKey(tools as ToolInfo[]);
  if (duplicate !== undefined) {
    const { index, earlier, toolKey } = duplicate;
    throw new InvalidRequestError(`/tools/${index}/toolKey`, `duplicates /tools/${earlier}/toolKey (${JSON.stringify(toolKey)})`);
  }
}

/**
 * ToolInfoSchema written out by hand: it accepts exactly what `Value.Check(ToolInfoSchema)` accepts
 * (test/validation.test.ts checks both the equivalence and that the schema has not changed), at a
 * small fraction of the cost: 3,000 tools take ~0.2 ms instead of ~2-4 ms, and ~0.5 ms instead of
 * ~10-25 ms in a process where the schema checker has not run yet. A tool it rejects goes to the
 * schema, which names the bad field.
 */
export function isPlainlyValidTool(value: unknown): boolean {
  if (!isObject(value)) return false;
  const tool = value as Record<string, unknown>;
  return (
    isNonEmptyString(tool.toolKey) &&
    isNonEmptyString(tool.toolName) &&
    typeof tool.serverName === 'string' &&
    (tool.description === undefined || typeof tool.description === 'string') &&
    (tool.title === undefined || typeof tool.title === 'string') &&
    (tool.inputSchema === undefined || isObject(tool.inputSchema)) &&
    (tool.annotations === undefined || isObject(tool.annotations)) &&
    (tool.tags === undefined || (Array.isArray(tool.tags) && tool.tags.every((tag) => typeof tag === 'string')))
  );
}

const isObject = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value);
const isNonEmptyString = (value: unknown): boolean => typeof value === 'string' && value.length > 0;

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
