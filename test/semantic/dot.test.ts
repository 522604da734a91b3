// The dot product in four running sums (embedder.ts) is the plain sum, for any length.
import { describe, expect, it } from 'vitest';
import { dot } from '../../src/semantic/embedder.js';

const plain = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i]!, 0);

describe('dot', () => {
  it.each([0, 1, 3, 4, 5, 7, 512, 513])('equals the plain sum for %i dimensions', (length) => {
    const a = Float32Array.from({ length }, (_, i) => Math.sin(i + 1));
    const b = Float32Array.from({ length }, (_, i) => Math.cos(i * 3));
    expect(dot(a, b)).toBeCloseTo(plain(a, b), 9);
  });
});
