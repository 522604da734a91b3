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
    return only.order.map((index) => ({
      index,
      score: only.scores[index]!,
      relevance: only.relevance[index]!,
      subQuery: 0,
    }));
  }
  // Per tool index rather than a Map of entry objects: every match of every sub-query passes here
  // (figures: packages/core/DESIGN.md, "Sub-query fusion by index").
  const size = results[0]?.scores.length ?? 0;
  const sums = new Float64Array(size);
  const bests = new Float64Array(size);
  const relevances = new Float64Array(size);
  const subQueries = new Int32Array(size);
  const found = new Uint8Array(size);
  const indexes: number[] = [];
  results.forEach((result, q) => {
    const { order } = result;
    for (let rank = 0; rank < order.length; rank += 1) {
      const index = order[rank]!;
      const relevance = result.relevance[index]!;
      const weight = (0.3 + 0.7 * relevance) / (RANK_K + rank);
      if (found[index] === 0) {
        found[index] = 1;
        indexes.push(index);
        sums[index] = weight;
        bests[index] = weight;
        relevances[index] = relevance;
        subQueries[index] = q;
        continue;
      }
      sums[index]! += weight;
      if (weight > bests[index]!) {
        bests[index] = weight;
        subQueries[index] = q;
      }
      relevances[index] = Math.max(relevances[index]!, relevance);
    }
  });
  const entries = indexes.map((index) => ({
    index,
    relevance: relevances[index]!,
    subQuery: subQueries[index]!,
    score: bests[index]! + SUPPORT * (sums[index]! - bests[index]!),
  }));
  // -1, 0 or 1 rather than a difference of scores, which the sort would box on every comparison.
  return entries.sort((a, b) =>
    a.score > b.score ? -1 : a.score < b.score ? 1 : a.index < b.index ? -1 : a.index > b.index ? 1 : 0,
  );
}
