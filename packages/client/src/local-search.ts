import {
  adjustRelevance,
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
 * The local answer: core's `rankTools` (as the service's lexical stage), `adjustRelevance` and `toSearchResult` on the request that
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
  const ranked = rankTools(search, {
    // A tag boost can lift any matching tool into the answer: then the whole ranking is needed.
    limit: needsWholeRanking(search) ? Infinity : search.maxResults,
    cache: local.cache,
    maxDescriptionChars: local.maxDescriptionChars,
  });
  return {
    results: adjustRelevance(ranked, search).slice(0, search.maxResults).map(toSearchResult),
    meta: { ranker: 'bm25', degraded: `local_fallback:${reason}`, requestId, ...search.skippedMeta },
  };
}

/**
 * Analyses a tool list into the cache ahead of need, so the first fallback on that list costs a
 * cache lookup instead of tokenizing every tool. Ranking any query on the list builds and caches
 * its analysis (RankCache's contract); limit 0 skips building results.
 */
export function prepareLocally(tools: ToolInfo[], local: LocalSearch): void {
  rankTools(
    { query: ['prepare'], tools },
    { limit: 0, cache: local.cache, maxDescriptionChars: local.maxDescriptionChars },
  );
}

/**
 * The usable tools of a list the router hands to `prepare`, read as a search would read them: a
 * `tools` list, or the grouped form (`toServers()`'s output) when every entry is a server.
 */
export function usableTools(list: readonly unknown[]): ToolInfo[] {
  const grouped = list.length > 0 && list.every(isServerEntry);
  const reading = readToolList(grouped ? { servers: list } : { tools: list });
  return reading.ok ? reading.list.tools : [];
}

const isServerEntry = (entry: unknown): boolean =>
  typeof entry === 'object' &&
  entry !== null &&
  typeof (entry as { serverId?: unknown }).serverId === 'string' &&
  Array.isArray((entry as { tools?: unknown }).tools);
