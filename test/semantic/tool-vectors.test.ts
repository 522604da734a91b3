// A list's matrix of vectors (ListMatrix) and the similarities over it: the same numbers, to the last
// bit, as `bestDot` over the vectors one by one, so that rankings do not move.
import { describe, expect, it } from 'vitest';
import { bestDot } from '../../src/semantic/vector-math.js';
import { bestDots, ListMatrix, LookedUpVectors } from '../../src/semantic/tool-vectors.js';

/** A deterministic pseudo-random vector (no Math.random: a failure must replay). */
function vector(seed: number, length: number): Float32Array {
  const out = new Float32Array(length);
  let state = seed * 2654435761;
  for (let i = 0; i < length; i += 1) {
    state = (state * 1103515245 + 12345) % 2147483648;
    out[i] = state / 2147483648 - 0.5;
  }
  return out;
}

describe('ListMatrix', () => {
  it('fills rows, says which are absent, and gives back the vectors it holds', () => {
    const matrix = new ListMatrix(5, 4, 3, 'model', 1);
    expect(matrix.absent()).toEqual([0, 1, 2, 3]);
    expect(matrix.fill(1, vector(1, 3))).toBe(true);
    expect(matrix.fill(2, vector(2, 4))).toBe(false);
    expect(matrix.fill(4, vector(4, 3))).toBe(false);
    matrix.refresh([0, 2, 3], (index) => (index === 3 ? vector(3, 3) : undefined));
    expect(matrix.absent()).toEqual([0, 2]);
    expect(matrix.ready).toBe(2);
    expect(matrix.missing).toBe(2);
    expect(matrix.at(1)).toEqual(vector(1, 3));
    expect(matrix.at(3)).toEqual(vector(3, 3));
    expect(matrix.toArray().map((row) => row !== undefined)).toEqual([false, true, false, true, false]);
    expect(matrix.bytes).toBe(ListMatrix.bytes(4, 3));
    expect(ListMatrix.bytes(1000, 512)).toBeGreaterThan(1000 * 512 * 4);
  });
});

describe('bestDots', () => {
  it.each([
    [512, 2],
    [512, 1],
    [512, 3],
    [64, 4],
    [7, 2],
    [3, 1],
    [1, 2],
  ])('over a matrix equals bestDot over the vectors, bit for bit (%i numbers, %i queries)', (length, count) => {
    const rows = 40;
    const queries = Array.from({ length: count }, (_, q) => vector(1000 + q, length));
    const vectors = Array.from({ length: rows + 3 }, (_, i) =>
      i % 5 === 2 || i >= rows ? undefined : vector(i, length),
    );
    const matrix = new ListMatrix(rows + 3, rows, length, 'model', 1);
    vectors.forEach((v, i) => v && matrix.fill(i, v));
    const overMatrix = bestDots(queries, matrix);
    const overVectors = bestDots(queries, new LookedUpVectors(vectors, rows));
    expect(overMatrix.compared).toBe(vectors.filter(Boolean).length);
    expect(overVectors.compared).toBe(overMatrix.compared);
    vectors.forEach((v, i) => {
      const expected = v === undefined ? Number.NaN : bestDot(queries, v);
      expect(Object.is(overMatrix.similarity[i], expected)).toBe(true);
      expect(Object.is(overVectors.similarity[i], expected)).toBe(true);
    });
  });

  it('compares no row of another length than the queries', () => {
    const matrix = new ListMatrix(2, 2, 4, 'model', 1);
    matrix.fill(0, vector(1, 4));
    const { similarity, compared } = bestDots([vector(2, 8)], matrix);
    expect(compared).toBe(0);
    expect([...similarity].every(Number.isNaN)).toBe(true);
  });
});
