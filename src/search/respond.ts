import { toSearchResult, type RankedTool, type SearchMeta, type SearchResponse } from '@catalog-search/core';

/**
 * The response stage: the wire answer, best first, each tool through core's `toSearchResult`. This
 * is the one place the ranking is cut to `maxResults`.
 */
export function respond(ranked: readonly RankedTool[], maxResults: number, meta: SearchMeta): SearchResponse {
  return { results: ranked.slice(0, maxResults).map(toSearchResult), meta };
}
