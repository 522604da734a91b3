import { capRelevanceDownTheList, round3, type RankedTool, type ToolInfo } from '@catalog-search/core';

export interface FusionOptions {
  /**
   * What a tool that stands out by meaning adds, against 1 for the best lexical match, when that match
   * covers the request fully (top lexical relevance 1).
   */
  weight: number;
  /**
   * The same when no word matches (top lexical relevance 0); between the two it follows the request's
   * top lexical relevance linearly, so meaning counts more where words are weak.
   */
  weakWeight: number;
  /**
   * How far a tool must stand out from the request's similarity to the list to add anything, in standard
   * deviations (z = (similarity − mean) / spread): below `zFloor` nothing, `weight` from `zFloor + zSpan`.
   */
  zFloor: number;
  zSpan: number;
  /** At most this many times `weight` for a tool that stands out far (z ≥ zFloor + zCap × zSpan). */
  zCap: number;
  /** Only this many most similar tools are fused in (deeper ones add noise, not recall). */
  depth: number;
  /**
   * Lexical matches at least this relevant keep their lexical order above everything else: a tool the
   * request names exactly (relevance ≥ 0.97, core's EXACT_RELEVANCE) stays first.
   */
  strongRelevance: number;
}

/**
 * Score-level fusion, tuned with the eval's sweep on the eight public sets. A tool adds meaning only
 * where it stands out (z ≥ 2.5): when every tool added a little (a linear add from a low percentile of
 * similarity up), the encoder's noise reordered near-ties among word matches and Toolink lost, even at a
 * small weight; with the floor no set is worse outside noise. A weight that grows as words match less
 * lost on ToolBench, so `weakWeight` equals `weight`; the cap of 3 lets a tool that stands out very far
 * (z ≥ 8.5) pass any word match. Why these values: docs/ranking.md#semantic-stage (the fusion sweep).
 */
export const DEFAULT_FUSION: FusionOptions = {
  weight: 0.35,
  weakWeight: 0.35,
  zFloor: 2.5,
  zSpan: 2,
  zCap: 3,
  depth: 150,
  strongRelevance: 0.97,
};

/**
 * Similarity → calibrated relevance for a tool found by meaning only. Raw cosine does not mean the
 * same from one request to the next (with the embedded encoder a nonsense request can sit closer to
 * every tool than a real one to its tool), so the mapping reads how far a tool stands out from the
 * request's similarity to the whole list: z = (similarity − mean) / spread. Among n tools that are all
 * unrelated to the request the best z is about √(2 ln n) by chance alone (3.5 for 500 tools, 4.3 for
 * 10,000), so relevance starts `margin` above that and reaches `max` `span` further: a request nothing
 * fits stays low in a list of any size. Capped below a good word match: meaning alone is weaker
 * evidence. Why these values: docs/ranking.md#semantic-stage (eval's calibration report).
 */
const SEMANTIC_RELEVANCE = { margin: 0.5, span: 3, max: 0.6 };

export function semanticRelevance(z: number, listSize: number): number {
  const { margin, span, max } = SEMANTIC_RELEVANCE;
  const floor = Math.sqrt(2 * Math.log(Math.max(listSize, 2))) + margin;
  if (!(z > floor)) return 0;
  return round3(Math.min(1, (z - floor) / span) * max);
}

/**
 * The hybrid ranking: each tool's lexical score as a share of the best lexical match's, plus what its
 * similarity adds where it stands out from the request's similarity to the whole list (z from `zFloor`,
 * up to `weight`).
 * Where words match strongly, the best match leads by a wide lexical margin that meaning cannot undo;
 * where they match weakly (many tools within a few tenths of each other), meaning decides, and a tool
 * found by meaning alone can reach the top. A tool listed with lexical relevance 0 (another tool of its
 * server matched) brings no lexical score: it ranks by meaning alone, below every tool with more of it.
 * `similarity[i]` is tool i's best similarity over the sub-queries, NaN where it has no vector yet (it
 * then ranks lexically only).
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
  let compared = 0;
  let sum = 0;
  let squares = 0;
  for (let i = 0; i < tools.length; i += 1) {
    const s = similarity[i]!;
    if (Number.isNaN(s)) continue;
    compared += 1;
    sum += s;
    squares += s * s;
  }
  if (compared === 0) return lexical.map((ranked) => new FusedMatch(ranked, ranked.score, ranked.relevance));
  const depth = Math.min(options.depth, compared);
  const semantic = mostSimilar(similarity, compared, depth);
  const mean = sum / compared;
  const spread = Math.sqrt(Math.max(squares / compared - mean * mean, 1e-6));
  const topRelevance = Math.min(1, Math.max(0, lexical[0]?.relevance ?? 0));
  const weight = options.weight + (options.weakWeight - options.weight) * (1 - topRelevance);
  const strong = lexical.filter((ranked) => ranked.relevance >= options.strongRelevance);
  const bestLexical =
    lexical.find((ranked) => ranked.relevance > 0 && ranked.relevance < options.strongRelevance)?.score ?? 0;

  // Per tool index: its fused score, lexical entry and place (1: fused, 2: kept on top). Arrays by index
  // rather than a Map of entry objects: faster (docs/performance.md#tool-set-references).
  const scores = new Float64Array(tools.length);
  const listed = new Uint8Array(tools.length);
  const lexicalOf = new Array<RankedTool | undefined>(tools.length);
  const order: number[] = [];
  for (const ranked of strong) listed[ranked.index] = 2;
  for (const ranked of lexical) {
    if (listed[ranked.index] !== 0) continue;
    listed[ranked.index] = 1;
    order.push(ranked.index);
    lexicalOf[ranked.index] = ranked;
    scores[ranked.index] = ranked.relevance > 0 && bestLexical > 0 ? ranked.score / bestLexical : 0;
  }
  for (let rank = 0; rank < depth; rank += 1) {
    const index = semantic[rank]!;
    if (listed[index] === 2) continue;
    const z = (similarity[index]! - mean) / spread;
    const add = weight * Math.min(options.zCap, Math.max(0, (z - options.zFloor) / options.zSpan));
    if (listed[index] === 0) {
      // Found by meaning only: a tiny share by similarity rank orders those that add nothing else (the
      // more similar first) and puts them above tools listed for their server only (score 0).
      scores[index] = TIE_BREAK * (1 - rank / depth);
      listed[index] = 1;
      order.push(index);
    }
    scores[index]! += add;
  }
  // Stable: equal scores keep the order they came in (lexical order, then by similarity).
  order.sort((a, b) => scores[b]! - scores[a]!);
  const fusedEntry = (index: number): RankedTool => {
    const found = lexicalOf[index];
    if (found) return new FusedMatch(found, scores[index]!, found.relevance);
    const z = (similarity[index]! - mean) / spread;
    return new SemanticMatch(tools[index]!, index, scores[index]!, semanticRelevance(z, compared), similarity[index]!);
  };
  const fused: RankedTool[] = [
    ...strong.map((ranked) => new FusedMatch(ranked, ranked.score, ranked.relevance)),
    ...order.map(fusedEntry),
  ];
  // As in the lexical ranking, relevance never rises down the list (an understatement, never an
  // overstatement): on the fused entries, so the lexical ranking keeps its own relevances.
  capRelevanceDownTheList(fused);
  return fused;
}

/**
 * The `depth` tools of highest similarity (of the `compared` that have one), most similar first, the
 * lower index first among equals: the first `depth` of all of them sorted so. Only those are fused in,
 * and sorting a whole list by a comparator was a noticeable part of a search
 * (docs/performance.md#a-search-by-reference-the-lists-vectors-as-one-matrix). Here the similarities
 * are sorted as numbers (no comparator), the `depth`-th largest read off, and only the tools at or above
 * it (`depth` and any ties) sorted by the comparator: every tool left out has `depth` tools before it,
 * so the first `depth` are the same, in the same order.
 */
function mostSimilar(similarity: ArrayLike<number>, compared: number, depth: number): number[] {
  const values = new Float64Array(compared);
  let next = 0;
  for (let i = 0; i < similarity.length; i += 1) if (!Number.isNaN(similarity[i]!)) values[next++] = similarity[i]!;
  values.sort();
  const threshold = values[compared - depth]!;
  const top: number[] = [];
  for (let i = 0; i < similarity.length; i += 1) if (similarity[i]! >= threshold) top.push(i);
  top.sort((a, b) => similarity[b]! - similarity[a]! || a - b);
  top.length = depth;
  return top;
}

// Far below what any word match adds (a lexical score as a share of the best is 0.01 or more in practice).
const TIE_BREAK = 1e-6;

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
