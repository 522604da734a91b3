// Fusing sub-query rankings (ranking/fuse.ts): each sub-query gives a tool (0.3 + 0.7 × relevance) /
// (4 + rank); the fused score is the best weight plus a quarter of the others; ties go by list order.
import { describe, expect, it } from 'vitest';
import { fuseSubQueries } from '../src/ranking/fuse.js';
import type { SubQueryResult } from '../src/ranking/score-query.js';

/** A sub-query's ranking over 6 tools: `order` best first, `relevance` per tool index. */
const result = (order: number[], relevance: number[]) =>
  ({ order, relevance: Float64Array.from(relevance), scores: new Float64Array(6) }) as unknown as SubQueryResult;
const weight = (relevance: number, rank: number) => (0.3 + 0.7 * relevance) / (4 + rank);

describe('fuseSubQueries', () => {
  it('scores a tool found by several sub-queries by its best weight plus a quarter of the others, and keeps the best sub-query and relevance', () => {
    const first = result([2, 0, 5], [0.4, 0, 0.9, 0, 0, 0.1]);
    const second = result([0, 3], [0.8, 0, 0, 0.5, 0, 0]);
    const fused = fuseSubQueries([first, second]);
    const entries = Array.from({ length: fused.length }, (_, i) => fused.at(i));
    const expected = [
      { index: 0, relevance: 0.8, subQuery: 1, score: weight(0.8, 0) + 0.25 * weight(0.4, 1) },
      { index: 2, relevance: 0.9, subQuery: 0, score: weight(0.9, 0) },
      { index: 3, relevance: 0.5, subQuery: 1, score: weight(0.5, 1) },
      { index: 5, relevance: 0.1, subQuery: 0, score: weight(0.1, 2) },
    ].sort((a, b) => b.score - a.score || a.index - b.index);
    expect(entries).toEqual(expected);
  });

  it('orders equal scores by list order, and takes one sub-query as it ranked', () => {
    const fused = fuseSubQueries([result([4, 1], [0, 0.5, 0, 0, 0.5, 0]), result([1, 4], [0, 0.5, 0, 0, 0.5, 0])]);
    expect(Array.from(fused.index)).toEqual([1, 4]);
    expect(fused.score[0]).toBe(fused.score[1]);
    expect(Array.from(fuseSubQueries([result([5, 0], [0.2, 0, 0, 0, 0, 0.7])]).index)).toEqual([5, 0]);
  });
});
