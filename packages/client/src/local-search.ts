import {
  rankRequest,
  rankTools,
  toSearchResult,
  type RankCache,
  type SearchRequest,
  type SearchResponse,
  type ToolInfo,
} from '@catalog-search/core';
import type { FallbackReason } from './fallback-reason.js';

/**
 * The local answer: core's `rankRequest` + `toSearchResult`, the same calls as the service's lexical
 * stage, so the router gets the ranking the service would give with `meta.ranker: "bm25"`.
 */
export interface LocalSearch {
  cache: RankCache;
  /** Must equal the service's MAX_DESCRIPTION_CHARS for the rankings to match. */
  maxDescriptionChars: number;
}

export function searchLocally(
  request: SearchRequest,
  local: LocalSearch,
  requestId: string,
  reason: FallbackReason,
): SearchResponse {
  const ranked = rankRequest(request, { cache: local.cache, maxDescriptionChars: local.maxDescriptionChars });
  return {
    results: ranked.map(toSearchResult),
    meta: { ranker: 'bm25', degraded: `local_fallback:${reason}`, requestId },
  };
}

/**
 * Analyses a tool list into the cache ahead of need, so the first fallback on that list costs a
 * cache lookup instead of tokenizing every tool. Ranking any query on the list builds and caches
 * its analysis (RankCache's contract); limit 0 skips building results.
 */
export function prepareLocally(tools: ToolInfo[], local: LocalSearch): void {
  rankTools({ query: ['prepare'], tools }, { limit: 0, cache: local.cache, maxDescriptionChars: local.maxDescriptionChars });
}
