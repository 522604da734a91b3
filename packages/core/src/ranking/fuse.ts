import type { SubQueryResult } from './score-query.js';

/** A tool's place after fusing the sub-queries' rankings. */
export interface FusedEntry {
  index: number;
  score: number;
  relevance: number;
  /** The sub-query that ranks this tool best (its explanation comes from there). */
  subQuery: number;
}

// Reciprocal-rank constant: small, so each sub-query's first few tools reach the fused top.
const RANK_K = 4;
// How much being found by other sub-queries as well adds to a tool's best sub-query weight.
const SUPPORT = 0.25;

/**
 * Fuses per-sub-query rankings so that every step of a multi-step task gets its best tools near the
 * top, instead of pooling all words into one bag (where the wordiest step drowns the others).
 * Each sub-query gives a tool the weight (0.3 + 0.7 × relevance) / (RANK_K + rank); the fused score
 * is the best weight plus SUPPORT × the others. Because the weight depends on rank within the
 * sub-query, the steps interleave; because it also depends on calibrated relevance, a sub-query that
 * nothing fits does not push its weak matches above another step's good ones.
 * The fused relevance is the tool's best sub-query relevance (a tool fully serving one step is relevant).
 */
export function fuseSubQueries(results: readonly SubQueryResult[]): FusedEntry[] {
  const [only] = results;
  if (results.length === 1 && only) {
    return only.order.map((index) => ({ index, score: only.scores[index]!, relevance: only.relevance[index]!, subQuery: 0 }));
  }
  const fused = new Map<number, FusedEntry & { sum: number; best: number }>();
  results.forEach((result, q) => {
    result.order.forEach((index, rank) => {
      const relevance = result.relevance[index]!;
      const weight = (0.3 + 0.7 * relevance) / (RANK_K + rank);
      const entry = fused.get(index);
      if (entry === undefined) {
        fused.set(index, { index, score: 0, relevance, subQuery: q, sum: weight, best: weight });
        return;
      }
      entry.sum += weight;
      if (weight > entry.best) {
        entry.best = weight;
        entry.subQuery = q;
      }
      entry.relevance = Math.max(entry.relevance, relevance);
    });
  });
  const entries = [...fused.values()].map(({ index, relevance, subQuery, sum, best }) => ({
    index,
    relevance,
    subQuery,
    score: best + SUPPORT * (sum - best),
  }));
  return entries.sort((a, b) => b.score - a.score || a.index - b.index);
}
