import { rankRequest, type PreparedSearch, type RankCache, type RankedTool } from '@catalog-search/core';

/**
 * The lexical stage: the BM25F ranking from packages/core on this project's cache. `limit` is how
 * many the later stages need (all matches for a reranker; the answer's size without one, which
 * lets core skip ordering the rest).
 */
export function rankLexically(
  request: PreparedSearch,
  options: { limit: number; cache: RankCache; maxDescriptionChars: number },
): RankedTool[] {
  return rankRequest(request, options);
}
