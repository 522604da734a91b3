import {
  adjustRelevance,
  DEFAULT_MAX_RESULTS,
  needsWholeRanking,
  rankTools,
  readToolList,
  toSearchResult,
  type PreparedSearch,
  type RankCache,
  type SearchResponse,
  type ToolInfo,
} from '@catalog-search/core';
import type { FallbackReason } from './fallback-reason.js';

/**
 * The local answer: core's `rankTools`, `adjustRelevance` and `toSearchResult` on the request that
 * core's `prepareSearch` made ready (tools read and filtered): the same code as the service's
 * lexical stage, so the router gets the ranking the service would give with `meta.ranker: "bm25"`,
 * filters, boosts, `minRelevance` and `meta.skipped` included.
 */
export interface LocalSearch {
  cache: RankCache;
  /** Must equal the service's MAX_DESCRIPTION_CHARS for the rankings to match. */
  maxDescriptionChars: number;
}

export function searchLocally(
  search: PreparedSearch,
  local: LocalSearch,
  requestId: string,
  reason: FallbackReason,
): SearchResponse {
  const maxResults = search.maxResults ?? DEFAULT_MAX_RESULTS;
  const input = search.context === undefined
    ? { query: search.query, tools: search.tools }
    : { query: search.query, tools: search.tools, context: search.context };
  const ranked = rankTools(input, {
    ...(needsWholeRanking(search) ? {} : { limit: maxResults }),
    cache: local.cache,
    maxDescriptionChars: local.maxDescriptionChars,
  });
  return {
    results: adjustRelevance(ranked, search).slice(0, maxResults).map(toSearchResult),
    meta: { ranker: 'bm25', degraded: `local_fallback:${reason}`, requestId, ...search.skippedMeta },
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

/** The usable tools of a list the router hands to `prepare` (read as a search would read them). */
export function usableTools(tools: unknown[]): ToolInfo[] {
  const reading = readToolList({ tools });
  return reading.ok ? reading.list.tools : [];
}
