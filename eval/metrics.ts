// Retrieval metrics over binary relevance (`relevant` in the datasets; LiveMCPBench's `groups` are
// folded into it, as the dataset README says).

function recallAt(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  if (relevant.size === 0) return 0;
  let found = 0;
  for (const key of ranked.slice(0, k)) if (relevant.has(key)) found += 1;
  return found / relevant.size;
}

export function ndcgAt(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  let dcg = 0;
  ranked.slice(0, k).forEach((key, i) => {
    if (relevant.has(key)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(relevant.size, k); i += 1) ideal += 1 / Math.log2(i + 2);
  return ideal > 0 ? dcg / ideal : 0;
}

function reciprocalRank(ranked: readonly string[], relevant: ReadonlySet<string>): number {
  const at = ranked.findIndex((key) => relevant.has(key));
  return at < 0 ? 0 : 1 / (at + 1);
}

export const METRICS = ['NDCG@10', 'R@5', 'R@10', 'R@40', 'R@150', 'MRR'] as const;
export type Metric = (typeof METRICS)[number];

export function scoreQuery(ranked: readonly string[], relevant: readonly string[]): Record<Metric, number> {
  const gold = new Set(relevant);
  return {
    'NDCG@10': ndcgAt(ranked, gold, 10),
    'R@5': recallAt(ranked, gold, 5),
    'R@10': recallAt(ranked, gold, 10),
    'R@40': recallAt(ranked, gold, 40),
    'R@150': recallAt(ranked, gold, 150),
    MRR: reciprocalRank(ranked, gold),
  };
}

/**
 * How far a mean difference between two rankers is from noise: the 95 % interval of the mean of
 * `b[i] - a[i]` over queries resampled with replacement (paired bootstrap: both rankers see the same
 * resampled queries). An interval that contains 0 is a change within noise. Seeded, so a rerun of
 * the same scores prints the same interval.
 */
export function pairedBootstrap(
  a: readonly number[],
  b: readonly number[],
  resamples = 2_000,
  seed = 1,
): { mean: number; low: number; high: number } {
  if (a.length !== b.length || a.length === 0)
    throw new RangeError('pairedBootstrap: two non-empty arrays of the same length');
  const differences = a.map((value, i) => b[i]! - value);
  const n = differences.length;
  let state = seed >>> 0 || 1;
  // xorshift32: a small, seeded generator; the interval needs uniform indices, not cryptography.
  const nextIndex = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % n;
  };
  const means: number[] = [];
  for (let r = 0; r < resamples; r += 1) {
    let sum = 0;
    for (let i = 0; i < n; i += 1) sum += differences[nextIndex()]!;
    means.push(sum / n);
  }
  means.sort((x, y) => x - y);
  return {
    mean: differences.reduce((sum, d) => sum + d, 0) / n,
    low: means[Math.floor(0.025 * (resamples - 1))]!,
    high: means[Math.ceil(0.975 * (resamples - 1))]!,
  };
}
