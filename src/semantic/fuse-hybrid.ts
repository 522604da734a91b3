import type { RankedTool, ToolInfo } from '@catalog-search/core';

export interface FusionOptions {
  /** Reciprocal-rank constant. */
  k: number;
  /** The semantic ranking's weight against the lexical one's 1. */
  weight: number;
  /** Lexical matches at least this relevant keep their lexical order above everything else. */
  strongRelevance: number;
  /** Only this many best semantic matches are fused in (deeper ones add noise, not recall). */
  depth: number;
}

/**
 * Tuned with `npm run eval -- --fusion '[...]'` on all eight public sets (docs/ranking.md has the sweep):
 * a small k and a quarter weight let a strong semantic match climb into the top ten without reordering
 * good lexical matches; k = 60 with weight 0.5 (plain weighted RRF) lowered NDCG@10 by up to 0.09 on
 * ToolBench and Toolink, and scaling the weight by the lexical top relevance did worse still.
 */
export const DEFAULT_FUSION: FusionOptions = { k: 10, weight: 0.25, strongRelevance: 0.5, depth: 150 };

/**
 * Similarity → calibrated relevance for a tool found by meaning only. Raw cosine does not mean the
 * same from one request to the next (with the embedded encoder a nonsense request can sit closer to
 * every tool than a real one to its tool), so the mapping reads how far a tool stands out from the
 * request's similarity to the whole list: z = (similarity − mean) / spread. Among n tools that are all
 * unrelated to the request the best z is about √(2 ln n) by chance alone (3.5 for 500 tools, 4.3 for
 * 10,000), so relevance starts `margin` above that and reaches `max` `span` further: a request nothing
 * fits stays low in a list of any size. Capped below a good word match: meaning alone is weaker
 * evidence. Measured with eval's calibration report (docs/ranking.md).
 */
export const SEMANTIC_RELEVANCE = { margin: 0.5, span: 3, max: 0.6 };

export function semanticRelevance(z: number, listSize: number): number {
  const { margin, span, max } = SEMANTIC_RELEVANCE;
  const floor = Math.sqrt(2 * Math.log(Math.max(listSize, 2))) + margin;
  if (!(z > floor)) return 0;
  return Math.round(Math.min(1, (z - floor) / span) * max * 1000) / 1000;
}

/**
 * The hybrid ranking: the lexical ranking fused with the semantic one by weighted reciprocal ranks,
 * with lexically strong matches kept on top (a tool that the request names in so many words is not
 * pushed down by one that is merely close in meaning). `similarity[i]` is tool i's best similarity
 * over the sub-queries, NaN where it has no vector yet (it then ranks lexically only).
 */
export function fuseHybrid(
  lexical: readonly RankedTool[],
  tools: readonly ToolInfo[],
  similarity: ArrayLike<number>,
  options: FusionOptions = DEFAULT_FUSION,
): RankedTool[] {
  const semantic: number[] = [];
  let sum = 0;
  let squares = 0;
  for (let i = 0; i < tools.length; i += 1) {
    const s = similarity[i]!;
    if (Number.isNaN(s)) continue;
    semantic.push(i);
    sum += s;
    squares += s * s;
  }
  if (semantic.length === 0) return [...lexical];
  semantic.sort((a, b) => similarity[b]! - similarity[a]! || a - b);
  const mean = sum / semantic.length;
  const spread = Math.sqrt(Math.max(squares / semantic.length - mean * mean, 1e-6));

  const strong: RankedTool[] = [];
  const scores = new Map<number, { score: number; lexical?: RankedTool }>();
  lexical.forEach((ranked, rank) => {
    if (ranked.relevance >= options.strongRelevance) strong.push(ranked);
    else scores.set(ranked.index, { score: 1 / (options.k + rank), lexical: ranked });
  });
  const strongIndexes = new Set(strong.map((ranked) => ranked.index));
  semantic.slice(0, options.depth).forEach((index, rank) => {
    if (strongIndexes.has(index)) return;
    const entry = scores.get(index);
    const add = options.weight / (options.k + rank);
    if (entry) entry.score += add;
    else scores.set(index, { score: add });
  });
  const rest = [...scores.entries()].sort((a, b) => b[1].score - a[1].score || a[0] - b[0]);
  const fused: RankedTool[] = [...strong];
  for (const [index, { score, lexical: ranked }] of rest) {
    const z = Number.isNaN(similarity[index]!) ? 0 : (similarity[index]! - mean) / spread;
    fused.push(ranked ?? new SemanticMatch(tools[index]!, index, score, semanticRelevance(z, semantic.length), similarity[index]!));
  }
  // As in the lexical ranking, relevance never rises down the list (an understatement, never an overstatement).
  // The lexical entries are this request's own objects (rankTools makes new ones per call).
  for (let i = 1; i < fused.length; i += 1) fused[i]!.relevance = Math.min(fused[i]!.relevance, fused[i - 1]!.relevance);
  return fused;
}

/** A tool found by meaning only: no word of the request matched it. */
class SemanticMatch implements RankedTool {
  constructor(
    readonly tool: ToolInfo,
    readonly index: number,
    public score: number,
    public relevance: number,
    readonly similarity: number,
  ) {}

  get explanation(): string {
    return `matched by meaning, not by words: no query term matched; similarity to the request ${this.similarity.toFixed(2)}`;
  }
}
