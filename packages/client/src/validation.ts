// `Value.Check` interprets the schema (no `new Function`), so it also runs under a strict
// Content-Security-Policy in a browser or an Electron renderer.
import {
  inspectNesting,
  MAX_NESTING_DEPTH,
  prepareSearch,
  readToolList,
  SearchEnvelopeSchema,
  SearchMetaSchema,
  SearchResultSchema,
  type PreparedSearch,
  type SearchEnvelope,
  type SearchResponse,
} from '@catalog-search/core';
import { Type, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { InvalidRequestError } from './errors.js';

/**
 * Checks the request as the service does: the envelope strictly (a bad field is a bug in the
 * caller, thrown as InvalidRequestError naming it), the tools leniently with core's reader (a tool
 * that cannot be used is skipped and reported in `meta.skipped`, as the service would). Returns the
 * request prepared for local ranking.
 */
export function prepareRequest(request: unknown): PreparedSearch {
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    throw new InvalidRequestError('', 'must be an object');
  }
  // The tool list first, as the service reads it before validating the envelope (so a request
  // with both problems names the same one first on either side).
  const { tools, servers, ...envelope } = request as Record<string, unknown>;
  const reading = readToolList({ tools, servers });
  if (!reading.ok) {
    const first = reading.problems[0]!;
    throw new InvalidRequestError(first.field, first.message);
  }
  // The service's envelope takes `toolSet` instead of a list; the client takes the list and refers to
  // it by itself, and a list sent with a reference is refused (400) on every search.
  if (envelope.toolSet !== undefined)
    throw new InvalidRequestError('/toolSet', 'is sent by the client itself: give tools or servers only');
  assertMatches(SearchEnvelopeSchema, envelope, '');
  const prepared = prepareSearch(envelope as SearchEnvelope, reading.list);
  if (!prepared.ok) {
    const first = prepared.problems[0]!;
    throw new InvalidRequestError(first.field, first.message);
  }
  return prepared.search;
}

function assertMatches(schema: TSchema, value: unknown, prefix: string): void {
  if (Value.Check(schema, value)) return;
  const first = Value.Errors(schema, value).First();
  throw new InvalidRequestError(
    `${prefix}${first?.path ?? ''}`,
    first?.message ?? `does not match ${schema.$id ?? 'the schema'}`,
  );
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

/**
 * The deepest a service's answer nests: a result's `annotations` (level 4 of the body) are a tool's
 * as sent, and the service skips tools nested deeper than MAX_NESTING_DEPTH. A deeper body passes
 * JSON.parse but would overflow the stack of the router's JSON.stringify when it hands the tools on.
 */
const MAX_RESPONSE_DEPTH = MAX_NESTING_DEPTH + 3;

/** Why a parsed body is not a usable answer to `request`, or undefined when it is. */
export function responseProblem(body: unknown, request: PreparedSearch): string | undefined {
  if (inspectNesting(body, MAX_RESPONSE_DEPTH) === 'too_deep')
    return `response nests deeper than ${MAX_RESPONSE_DEPTH} levels`;
  if (!Value.Check(TolerantSearchResponseSchema, body)) {
    const first = Value.Errors(TolerantSearchResponseSchema, body).First();
    return `response does not match SearchResponse: ${first?.path || '(root)'} ${first?.message ?? ''}`.trim();
  }
  const response = body as SearchResponse;
  // The service answers at most maxResults tools, each once, each one of the usable tools sent that
  // pass the filter, named as sent, none below minRelevance. Anything else is not an answer to this
  // request, and would hand the router tools it does not have (a known key under another tool's
  // name), tools it filtered out, or a list of any length.
  const { maxResults } = request;
  if (response.results.length > maxResults)
    return `response has ${response.results.length} results, more than maxResults (${maxResults})`;
  const sent = new Map(request.tools.map((tool) => [tool.toolKey, tool]));
  const answered = new Set<string>();
  for (const result of response.results) {
    const tool = sent.get(result.toolKey);
    if (!tool) return `response names a tool that was not sent: ${JSON.stringify(result.toolKey)}`;
    if (answered.has(result.toolKey)) return `response names ${JSON.stringify(result.toolKey)} twice`;
    if (request.minRelevance !== undefined && result.relevance < request.minRelevance) {
      return `response names ${JSON.stringify(result.toolKey)} with relevance ${result.relevance}, below minRelevance (${request.minRelevance})`;
    }
    answered.add(result.toolKey);
    if (result.toolName !== tool.toolName || result.serverName !== tool.serverName) {
      return `response names ${JSON.stringify(result.toolKey)} as ${JSON.stringify(`${result.serverName} / ${result.toolName}`)}, not as sent`;
    }
  }
  return undefined;
}
