import { rankTools, type PreparedSearch, type RankCache, type RankedTool } from '@catalog-search/core';

/** Stage 1: the lexical (BM25F) ranking from packages/core, on this project's cache. */
export function rankLexically(
  request: PreparedSearch,
  options: { limit: number; cache: RankCache; maxDescriptionChars: number },
): RankedTool[] {
  const input = request.context === undefined
    ? { query: request.query, tools: request.tools }
    : { query: request.query, tools: request.tools, context: request.context };
  return rankTools(input, options);
}
