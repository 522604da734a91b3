import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ranksBefore, sortByScore } from '../src/ranking/score-order.js';

// The order the engine's sort gave with the comparator scoring used before: best score, then list order.
const engineOrder = (docs: readonly number[], scores: Float64Array): number[] =>
  [...docs].sort((a, b) => (scores[a]! > scores[b]! ? -1 : scores[a]! < scores[b]! ? 1 : a - b));

describe('sortByScore', () => {
  it('puts tools best score first and ties in list order, from any starting order', () => {
    const scores = Float64Array.from([0.5, 2, 0.5, 3, 2, 0, 0.5]);
    const docs = [6, 5, 4, 3, 2, 1, 0];
    sortByScore(docs, scores);
    expect(docs).toEqual([3, 1, 4, 0, 2, 6, 5]);
    expect(ranksBefore(0, 2, scores)).toBe(true);
    expect(ranksBefore(2, 0, scores)).toBe(false);
  });

  it('gives the order the engine sort gives, for lists of every length around its runs and merges', () => {
    fc.assert(
      fc.property(
        // Few distinct scores, so that ties are common; a list of up to 600 tools, a shuffled subset of them.
        fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 600 }),
        fc.integer(),
        (values, seed) => {
          const scores = Float64Array.from(values, (v) => v / 3);
          const docs = values.map((_, i) => i).filter((i) => (i * 7 + seed) % 5 !== 0);
          for (let i = docs.length - 1; i > 0; i -= 1) {
            const j = Math.abs(seed * (i + 13)) % (i + 1);
            [docs[i], docs[j]] = [docs[j]!, docs[i]!];
          }
          const expected = engineOrder(docs, scores);
          sortByScore(docs, scores);
          expect(docs).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
