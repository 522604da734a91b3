import { rankToolsInSteps, type RankCache, type RankedTool, type SearchRequest } from '@catalog-search/core';

/**
 * Rankings of at least this much work (tools × sub-queries) let other requests run between their
 * steps (one per sub-query, ~15 ms at 5,000 tools): in one piece, 16 sub-queries over 5,000 tools held
 * the event loop ~250 ms, and every other project's searches waited behind it. Smaller ones run in
 * one go (a 1,000-tool, 1-query ranking is a few ms; pausing would only add latency).
 */
export const STEPPED_RANKING_WORK = 10_000;

/** Stage 1: the lexical (BM25F) ranking from packages/core, on this project's cache. */
export async function rankLexically(
  request: SearchRequest,
  options: { limit: number; cache: RankCache; maxDescriptionChars: number },
): Promise<RankedTool[]> {
  const input = request.context === undefined
    ? { query: request.query, tools: request.tools }
    : { query: request.query, tools: request.tools, context: request.context };
  const steps = rankToolsInSteps(input, options);
  const stepped = request.tools.length * request.query.length >= STEPPED_RANKING_WORK;
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (stepped) await new Promise((resolve) => setImmediate(resolve));
  }
}
