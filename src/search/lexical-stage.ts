import { rankRequest, type RankCache, type RankedTool, type SearchRequest } from '@catalog-search/core';

/** Stage 1: the lexical (BM25F) ranking from packages/core, on this project's cache. */
export function rankLexically(
  request: SearchRequest,
  options: { limit: number; cache: RankCache; maxDescriptionChars: number },
): RankedTool[] {
  return rankRequest(request, options);
}
