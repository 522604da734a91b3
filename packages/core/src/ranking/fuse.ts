import type { SubQueryResult } from './score-query.js';

/**
 * The fused ranking, best first, as columns: position `i` holds one tool's index, score, relevance and
 * best sub-query. Columns rather than an entry object per ranked tool: a list of 1,000 tools ranks most
 * of them, and the objects were a fifth of a warm search's allocation
 * (docs/performance.md#the-fused-ranking-as-columns).
 */
export class FusedRanking {
  readonly index: Int32Array;
  readonly score: Float64Array;
  readonly relevance: Float64Array;
  readonly subQuery: Int32Array;

  constructor(readonly length: number) {
    this.index = new Int32Array(length);
    this.score = new Float64Array(length);
    this.relevance = new Float64Array(length);
    this.subQuery = new Int32Array(length);
  }

  /**
   * Position `i` as one object (for reading, not in loops over the whole ranking); `subQuery` is the
   * sub-query that ranks the tool best (its explanation comes from there).
   */
  at(i: number): { index: number; score: number; relevance: number; subQuery: number } {
    return { index: this.index[i]!, score: this.score[i]!, relevance: this.relevance[i]!, subQuery: this.subQuery[i]! };
  }

  /** Sorts the positions by score, best first, list order on ties. */
  sortByScore(): void {
    const { index, score } = this;
    const positions = Array.from({ length: this.length }, (_, i) => i);
    // -1, 0 or 1 rather than a difference of scores, which the sort would box on every comparison.
    positions.sort((a, b) =>
      score[a]! > score[b]!
        ? -1
        : score[a]! < score[b]!
          ? 1
          : index[a]! < index[b]!
            ? -1
            : index[a]! > index[b]!
              ? 1
              : 0,
    );
    for (const column of [this.index, this.score, this.relevance, this.subQuery]) {
      const copy = column.slice();
      for (let i = 0; i < positions.length; i += 1) column[i] = copy[positions[i]!]!;
    }
  }
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
export function fuseSubQueries(results: readonly SubQueryResult[]): FusedRanking {
  const [only] = results;
  if (results.length === 1 && only) {
    const fused = new FusedRanking(only.order.length);
    only.order.forEach((index, i) => {
      fused.index[i] = index;
      fused.score[i] = only.scores[index]!;
      fused.relevance[i] = only.relevance[index]!;
    });
    return fused;
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
  const fused = new FusedRanking(indexes.length);
  indexes.forEach((index, i) => {
    fused.index[i] = index;
    fused.relevance[i] = relevances[index]!;
    fused.subQuery[i] = subQueries[index]!;
    fused.score[i] = bests[index]! + SUPPORT * (sums[index]! - bests[index]!);
  });
  fused.sortByScore();
  return fused;
}
