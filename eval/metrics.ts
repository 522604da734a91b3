// Retrieval metrics over binary relevance (`relevant` in the datasets; LiveMCPBench's `groups` are
// folded into it, as the dataset README says).

export function recallAt(ranked: readonly string[], relevant: ReadonlySet<string>, k: number): number {
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

export function reciprocalRank(ranked: readonly string[], relevant: ReadonlySet<string>): number {
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
