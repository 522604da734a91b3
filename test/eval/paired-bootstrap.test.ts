import { describe, expect, it } from 'vitest';
import { pairedBootstrap } from '../../eval/metrics.js';

describe('paired bootstrap interval of a mean difference', () => {
  it('is exactly the shift when every query moves by the same amount', () => {
    const a = [0.1, 0.5, 0.9, 0.3];
    const interval = pairedBootstrap(
      a,
      a.map((x) => x + 0.25),
    );
    expect(interval.mean).toBeCloseTo(0.25, 12);
    expect(interval.low).toBeCloseTo(0.25, 12);
    expect(interval.high).toBeCloseTo(0.25, 12);
  });

  it('contains 0 for changes that cancel out, and excludes it for a consistent gain', () => {
    const a = Array.from({ length: 200 }, (_, i) => (i % 10) / 10);
    const noisy = a.map((x, i) => x + (i % 2 === 0 ? 0.2 : -0.2));
    const noise = pairedBootstrap(a, noisy);
    expect(noise.mean).toBeCloseTo(0, 12);
    expect(noise.low).toBeLessThan(0);
    expect(noise.high).toBeGreaterThan(0);
    const better = pairedBootstrap(
      a,
      a.map((x, i) => x + (i % 2 === 0 ? 0.3 : -0.1)),
    );
    expect(better.low).toBeGreaterThan(0);
    expect(better.high).toBeGreaterThanOrEqual(better.mean);
  });

  it('gives the same interval for the same scores (seeded)', () => {
    const a = Array.from({ length: 50 }, (_, i) => Math.sin(i) ** 2);
    const b = a.map((x, i) => x + Math.cos(i) / 10);
    expect(pairedBootstrap(a, b)).toEqual(pairedBootstrap(a, b));
  });
});
