import { rankRequest, type PreparedSearch, type RankCache, type RankedTool } from '@catalog-search/core';

/** Stage 1: the lexical (BM25F) ranking from packages/core, on this project's cache. */
export function rankLexically(
  request: PreparedSearch,
  options: { limit: number; cache: RankCache; maxDescriptionChars: number },
): RankedTool[] {
  return rankRequest(request, options);
}
