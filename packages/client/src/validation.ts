import {
  SearchMetaSchema,
  SearchRequestSchema,
  SearchResultSchema,
  type SearchRequest,
  type SearchResponse,
} from '@catalog-search/core';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { InvalidRequestError } from './errors.js';

// `Value.Check` interprets the schema (no `new Function`), so it also runs under a strict
// Content-Security-Policy in a browser or an Electron renderer.

/** Throws InvalidRequestError naming the first bad field; the same schema the service validates with. */
export function assertValidRequest(request: unknown): asserts request is SearchRequest {
  if (!Value.Check(SearchRequestSchema, request)) {
    const first = Value.Errors(SearchRequestSchema, request).First();
    throw new InvalidRequestError(first?.path ?? '', first?.message ?? 'does not match SearchRequest');
  }
  // toolKey is unique within the list by contract; the service answers 400 otherwise.
  const seen = new Map<string, number>();
  request.tools.forEach((tool, index) => {
    const earlier = seen.get(tool.toolKey);
    if (earlier !== undefined) {
      throw new InvalidRequestError(`/tools/${index}/toolKey`, `duplicates /tools/${earlier}/toolKey (${JSON.stringify(tool.toolKey)})`);
    }
    seen.set(tool.toolKey, index);
  });
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
