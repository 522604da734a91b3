import {
  rankToolsBySubQueryInSteps,
  type PreparedSearch,
  type RankCache,
  type RankingBySubQuery,
} from '@catalog-search/core';

/**
 * Rankings of at least this much work (tools × sub-queries) let other requests run between their
 * steps (one per sub-query): in one piece, the largest searches held the event loop long enough that
 * every other project's searches waited behind them. Smaller ones run in one go (pausing would only
 * add latency). Why this bound: docs/performance.md#fair-sharing-between-projects
 */
const STEPPED_RANKING_WORK = 10_000;

/**
 * The lexical stage: the BM25F ranking from packages/core on this project's cache. `limit` is how
 * many the later stages need (all matches for a reranker; the answer's size without one, which
 * lets core skip ordering the rest). `bySubQuery` also gives each sub-query's own order, from the
 * same scores, for the rerank stage's prompt (it never ranks again).
 */
export async function rankLexically(
  request: PreparedSearch,
  options: { limit: number; cache: RankCache; maxDescriptionChars: number; bySubQuery: boolean },
): Promise<RankingBySubQuery> {
  const { bySubQuery, ...rankOptions } = options;
  const steps = rankToolsBySubQueryInSteps(request, rankOptions, bySubQuery);
  const stepped = request.tools.length * request.query.length >= STEPPED_RANKING_WORK;
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (stepped) await new Promise((resolve) => setImmediate(resolve));
  }
}
