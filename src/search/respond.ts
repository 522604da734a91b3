import {
  adjustRelevance,
  DEFAULT_MAX_RESULTS,
  toSearchResult,
  type PreparedSearch,
  type RankedTool,
  type SearchMeta,
  type SearchResponse,
} from '@catalog-search/core';

/**
 * The response stage: boosts and `minRelevance` applied (core's `adjustRelevance`, as in the
 * client's fallback), best first, each tool through core's `toSearchResult`, the skipped tools
 * reported in meta. This is the one place the ranking is cut to `maxResults`.
 */
export function respond(ranked: readonly RankedTool[], request: PreparedSearch, meta: SearchMeta): SearchResponse {
  const maxResults = request.maxResults ?? DEFAULT_MAX_RESULTS;
  return { results: adjustRelevance(ranked, request).slice(0, maxResults).map(toSearchResult), meta: { ...meta, ...request.skippedMeta } };
}
