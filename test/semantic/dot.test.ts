// The dot product in four running sums (embedder.ts) is the plain sum, for any length; bestDot, which
// takes two queries per pass over a tool's vector, gives exactly the best of the queries' dot products.
import { describe, expect, it } from 'vitest';
import { bestDot, dot } from '../../src/semantic/vector-math.js';

const plain = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i]!, 0);
const vector = (length: number, seed: number) =>
  Float32Array.from({ length }, (_, i) => Math.sin(seed * 7.1 + i * 1.3));

describe('dot', () => {
  it.each([0, 1, 3, 4, 5, 7, 512, 513])('equals the plain sum for %i dimensions', (length) => {
    const a = Float32Array.from({ length }, (_, i) => Math.sin(i + 1));
    const b = Float32Array.from({ length }, (_, i) => Math.cos(i * 3));
    expect(dot(a, b)).toBeCloseTo(plain(a, b), 9);
  });
});

describe('bestDot', () => {
  it.each([1, 5, 7, 512, 513])(
    'is the best dot product, to the last bit, for 0 to 5 queries of %i dimensions',
    (length) => {
      const tool = vector(length, 0);
      for (let count = 0; count <= 5; count += 1) {
        const queries = Array.from({ length: count }, (_, q) => vector(length, q + 1));
        const expected = queries.reduce((best, query) => Math.max(best, dot(query, tool)), -Infinity);
        expect(bestDot(queries, tool)).toBe(expected);
      }
    },
  );

  it('finds the best query wherever it stands among them', () => {
    const tool = vector(64, 0);
    const queries = [vector(64, 1), vector(64, 2), tool, vector(64, 3)];
    expect(bestDot(queries, tool)).toBe(dot(tool, tool));
    expect(bestDot(queries.reverse(), tool)).toBe(dot(tool, tool));
  });

  it('pairs queries of different lengths one by one, as dot would', () => {
    const tool = vector(9, 0);
    const queries = [vector(9, 1), vector(6, 2)];
    expect(bestDot(queries, tool)).toBe(Math.max(dot(queries[0]!, tool), dot(queries[1]!, tool)));
  });
});
