import { capRelevanceDownTheList, type RankedTool, type ToolInfo } from '@catalog-search/core';

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
 * a small k and a low weight let a strong semantic match climb into the top ten without reordering
 * good lexical matches. Of the four settings tried whose NDCG@10 change is within noise or better on
 * every set (paired bootstrap intervals), weight 0.15 has the smallest worst change (−0.003) and the
 * highest average; 0.25 lost 0.008 on Toolink (interval −0.016 to −0.001), and k = 60 with weight 0.5
 * (plain weighted RRF) lost up to 0.09 on ToolBench and Toolink.
 */
export const DEFAULT_FUSION: FusionOptions = { k: 10, weight: 0.15, strongRelevance: 0.5, depth: 150 };

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
 *
 * Pure: the lexical entries are not changed (eval and the service rank from the same entries); the
 * result holds new entries, whose explanations are the lexical ones, still written on first read.
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
  if (semantic.length === 0) return lexical.map((ranked) => new FusedMatch(ranked, ranked.score, ranked.relevance));
  semantic.sort((a, b) => similarity[b]! - similarity[a]! || a - b);
  const mean = sum / semantic.length;
  const spread = Math.sqrt(Math.max(squares / semantic.length - mean * mean, 1e-6));

  // Per tool index: its fused score and lexical entry, and whether it is strong or among the rest. Arrays
  // by index rather than a Map of entry objects: fusing 1,000 tools (827 lexical matches, two sub-queries)
  // took 0.28–0.39 ms instead of 0.37–0.48 ms (alternating runs), about a tenth of a search by reference.
  const strong: RankedTool[] = [];
  const rest: number[] = [];
  const scores = new Float64Array(tools.length);
  const place = new Uint8Array(tools.length);
  const lexicalOf = new Array<RankedTool | undefined>(tools.length);
  lexical.forEach((ranked, rank) => {
    if (ranked.relevance >= options.strongRelevance) {
      strong.push(ranked);
      place[ranked.index] = STRONG;
      return;
    }
    if (place[ranked.index] !== REST) rest.push(ranked.index);
    place[ranked.index] = REST;
    scores[ranked.index] = 1 / (options.k + rank);
    lexicalOf[ranked.index] = ranked;
  });
  const depth = Math.min(options.depth, semantic.length);
  for (let rank = 0; rank < depth; rank += 1) {
    const index = semantic[rank]!;
    if (place[index] === STRONG) continue;
    const add = options.weight / (options.k + rank);
    if (place[index] === REST) {
      scores[index]! += add;
      continue;
    }
    place[index] = REST;
    scores[index] = add;
    rest.push(index);
  }
  rest.sort((a, b) => scores[b]! - scores[a]! || a - b);
  const fused: RankedTool[] = strong.map((ranked) => new FusedMatch(ranked, ranked.score, ranked.relevance));
  for (const index of rest) {
    const z = Number.isNaN(similarity[index]!) ? 0 : (similarity[index]! - mean) / spread;
    const found = lexicalOf[index];
    fused.push(
      found
        ? new FusedMatch(found, found.score, found.relevance)
        : new SemanticMatch(tools[index]!, index, scores[index]!, semanticRelevance(z, semantic.length), similarity[index]!),
    );
  }
  // As in the lexical ranking, relevance never rises down the list (an understatement, never an
  // overstatement): on the fused entries, so the lexical ranking keeps its own relevances.
  capRelevanceDownTheList(fused);
  return fused;
}

// Where a tool stands in the fusion (fuseHybrid's `place`): kept on top, or among the fused rest.
const STRONG = 1;
const REST = 2;

/** A lexical match in the fused ranking: its own score and relevance, the lexical explanation. */
class FusedMatch implements RankedTool {
  readonly tool: ToolInfo;
  readonly index: number;
  readonly #lexical: RankedTool;

  constructor(
    lexical: RankedTool,
    public score: number,
    public relevance: number,
  ) {
    this.tool = lexical.tool;
    this.index = lexical.index;
    this.#lexical = lexical;
  }

  get explanation(): string {
    return this.#lexical.explanation;
  }
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
